// The cabinet's only script (CSP: scripts of this origin only, no inline code). Pages work
// without it; it adds the copy buttons: a button with data-copy="<id>" copies that field.
'use strict';
document.addEventListener('click', async (event) => {
  const button = event.target instanceof Element ? event.target.closest('button[data-copy]') : null;
  if (button === null) return;
  const field = document.getElementById(button.getAttribute('data-copy'));
  const status = document.getElementById(`${button.getAttribute('data-copy')}-status`);
  if (field === null) return;
  try {
    await navigator.clipboard.writeText(field.value ?? field.textContent);
    if (status !== null) status.textContent = 'Copied to the clipboard.';
  } catch {
    field.select?.();
    if (status !== null) status.textContent = 'Copy did not work here: the key is selected, press Ctrl+C (or ⌘C).';
  }
});
for (const button of document.querySelectorAll('button[data-copy]')) button.hidden = false;
// A countdown (a held refund's time to choose): the server wrote the milliseconds left when it
// made the page; counted down from the page's load, so a wrong clock on this computer cannot skew it.
const loaded = Date.now();
const countdowns = [...document.querySelectorAll('[data-countdown-ms]')];
if (countdowns.length > 0) {
  setInterval(() => {
    for (const element of countdowns) {
      const left = Number(element.getAttribute('data-countdown-ms')) - (Date.now() - loaded);
      element.textContent = left <= 0 ? 'the time is up' : `${Math.ceil(left / 60_000)} min left`;
    }
  }, 15_000);
}
// Times: the server writes UTC (readable without this script); shown here in the browser's own
// time zone, with the UTC text kept as the hover title.
const local = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' });
for (const element of document.querySelectorAll('time[datetime]')) {
  const at = new Date(element.getAttribute('datetime'));
  if (Number.isNaN(at.getTime()) || !/T/.test(element.getAttribute('datetime'))) continue;
  element.title = element.textContent;
  element.textContent = local.format(at);
}
