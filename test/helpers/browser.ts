// The headless Chromium of the browser tests: found on this machine, launched once per test file
// with the same options everywhere (no sandbox, GPU, first-run or background traffic of its own).
import { chromium, type Browser } from 'playwright-core';
import { findExecutable } from './executables.ts';

export const CHROMIUM = findExecutable(['chromium', 'chromium-browser', 'google-chrome']);

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-extensions',
  '--mute-audio',
];

/** Launches the file's browser; throws (failing the file) when Chromium is not installed. */
export async function launchBrowser(): Promise<Browser> {
  if (!CHROMIUM) throw new Error('chromium is missing: apt-get install -y chromium');
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}
