import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { totpCode, totpStep } from '../../src/domain/totp.js';
import { seriousAxeFindings } from '../helpers/axe.js';
import { CHROMIUM_ARGS, chromiumExecutable } from '../helpers/requirements.js';

export interface ConsoleBrowser {
  page: Page;
  /** Console errors, CSP refusals and page errors seen so far (a failed resource load is not one). */
  problems: string[];
  close(): Promise<void>;
}

/** Debian's chromium in a fresh profile at desktop width, its console errors and page errors collected. */
export async function openConsoleBrowser(): Promise<ConsoleBrowser> {
  const profile = mkdtempSync(path.join(tmpdir(), 'epa-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumExecutable(),
      headless: true,
      args: [...CHROMIUM_ARGS, '--disable-quic', '--no-first-run'],
      viewport: { width: 1280, height: 900 },
    });
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
  const problems: string[] = [];
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (message) => {
    if (/^Failed to load resource/.test(message.text())) return;
    if (message.type() === 'error' || /Content.Security.Policy|Refused to/i.test(message.text())) problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return {
    page,
    problems,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** No serious or critical axe-core finding on the page as it is now; `where` names it in a failure. */
export async function assertAxeClean(page: Page, where: string): Promise<void> {
  const findings = (await seriousAxeFindings(page)).map((finding) => `${finding.rule} (${finding.impact}): ${finding.help} at ${finding.targets.join(', ')}`);
  assert.deepEqual(findings, [], where);
}

/** The text of the page's main part once its notice (or problem) after an action is shown. */
export async function noticeText(page: Page): Promise<string> {
  await page.locator('p.notice, p.problem').first().waitFor();
  return page.locator('main').innerText();
}

/**
 * A person's first sign-in in the browser, from their invitation link: sets the password, signs
 * in, enrols two-factor with a code for `now` from the key the page shows, and reaches the
 * console's start page.
 */
export async function firstSignIn(page: Page, origin: string, invitationPath: string, email: string, password: string, now: Date): Promise<void> {
  await page.goto(`${origin}${invitationPath}`);
  await page.getByLabel('New password').fill(password);
  await page.getByLabel('The same password again').fill(password);
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.waitForURL(/\/console\/login/);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/console\/login\/code/);
  const key = (await page.locator('#totp-key').innerText()).replace(/ /g, '');
  await page.getByLabel('Code from the app').fill(totpCode(key, totpStep(now)));
  await page.getByRole('button', { name: /Turn on two-factor/ }).click();
  await page.getByRole('link', { name: 'Continue to the console' }).click();
  await page.waitForURL(`${origin}/console`);
}
