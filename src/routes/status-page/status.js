// The status page's only script (CSP: scripts of this origin only, no inline code). The page
// works without it (a <noscript> refresh every 30 seconds); with it, the page follows the order's
// status stream (GET /api/v1/public/orders/{token}/stream, docs/contract.md §10.11) and, at each new
// version, swaps in the page as the server renders it now, so both ways show the same page.
'use strict';
(() => {
  const main = document.querySelector('main[data-stream]');
  if (main === null || typeof EventSource !== 'function') return;
  const note = () => {
    const hint = document.querySelector('[data-refresh-note]');
    if (hint !== null) hint.textContent = ' This page updates itself as the order moves.';
  };
  note();
  const source = new EventSource(main.getAttribute('data-stream'));
  let shown = Number(main.getAttribute('data-version'));
  let loading = Promise.resolve();
  source.addEventListener('order', (event) => {
    const version = Number(String(event.lastEventId).split(':')[1]);
    if (!(version > shown)) return;
    shown = version;
    loading = loading.then(async () => {
      const res = await fetch(window.location.pathname, { headers: { accept: 'text/html' }, cache: 'no-store' });
      if (!res.ok) return;
      const page = new DOMParser().parseFromString(await res.text(), 'text/html');
      const fresh = page.querySelector('main');
      const current = document.querySelector('main');
      if (fresh === null || current === null) return;
      current.replaceWith(document.importNode(fresh, true));
      document.title = page.title;
      if (!fresh.hasAttribute('data-stream')) source.close();
      else note();
    }).catch(() => undefined);
  });
})();
