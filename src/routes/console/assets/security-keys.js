// The console's security key ceremonies (WebAuthn), served after @simplewebauthn/browser's own
// bundle in one file (routes/console/index.ts), which defines the global SimpleWebAuthnBrowser.
// A form with data-webauthn="register" or "authenticate" carries the options the server made
// (and whose challenge it keeps) in data-webauthn-options: on submit this runs the ceremony, puts
// the browser's answer in the form's hidden `credential` field and sends the form as any other.
// The forms stay hidden where the browser has no WebAuthn (their hint says so instead).
'use strict';
/* global SimpleWebAuthnBrowser */
const webauthn = typeof SimpleWebAuthnBrowser === 'object' ? SimpleWebAuthnBrowser : undefined;
const supported = webauthn !== undefined && webauthn.browserSupportsWebAuthn();

/** What a failed ceremony means, in words (the library names the browser's DOMException). */
function explain(error, kind) {
  const name = error instanceof Error ? error.name : '';
  const code = typeof error === 'object' && error !== null ? error.code : undefined;
  if (code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED' || name === 'InvalidStateError') return 'This security key is registered already.';
  if (name === 'SecurityError' || code === 'ERROR_INVALID_RP_ID' || code === 'ERROR_INVALID_DOMAIN') {
    return 'This browser refused the security key request: the console must be opened at its public address (PUBLIC_URL) for security keys to work.';
  }
  if (name === 'NotAllowedError' || name === 'AbortError') return `The security key request was cancelled or timed out. ${kind === 'register' ? 'Try again.' : 'Try again, or type a code.'}`;
  return `The security key did not answer (${name || 'error'}). Try again.`;
}

for (const form of document.querySelectorAll('form[data-webauthn]')) {
  if (!supported) continue;
  form.hidden = false;
  for (const hint of form.parentElement.querySelectorAll('[data-webauthn-unsupported]')) hint.hidden = true;
  const kind = form.getAttribute('data-webauthn');
  const status = form.querySelector('[data-webauthn-status]');
  const button = form.querySelector('button[type="submit"]');
  let answered = false;
  form.addEventListener('submit', async (event) => {
    if (answered) return;
    event.preventDefault();
    button.disabled = true;
    status.textContent = 'Touch your security key (or confirm on your device)…';
    try {
      const optionsJSON = JSON.parse(form.getAttribute('data-webauthn-options'));
      const answer = kind === 'register' ? await webauthn.startRegistration({ optionsJSON }) : await webauthn.startAuthentication({ optionsJSON });
      form.elements.namedItem('credential').value = JSON.stringify(answer);
      answered = true;
      status.textContent = 'Checking…';
      form.submit();
    } catch (error) {
      status.textContent = explain(error, kind);
      button.disabled = false;
    }
  });
}
