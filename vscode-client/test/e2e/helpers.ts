/** What the end-to-end stories share: finding things on the page, waiting, and steps. */

import { existsSync, readFileSync } from "node:fs";
import { test, type TestContext } from "node:test";

import type { Page } from "playwright-core";

import type { Editor } from "./codeServer";

/** The server's `.claude/plan-mode/endpoint.json`: where an agent connects, and who listens. */
export interface Endpoint {
  socket: string;
  pid: number;
}

export function parseEndpoint(text: string): Endpoint {
  return JSON.parse(text) as Endpoint;
}

export function endpointPid(file: string): number {
  return parseEndpoint(readFileSync(file, "utf8")).pid;
}

export async function waitForFile(path: string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`${path} did not appear within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return readFileSync(path, "utf8");
}

/** Waits until `check` holds; `what` names what was awaited, for the error when it does not. */
export async function waitUntil(
  check: () => boolean,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export function statusItem(page: Page, text: string | RegExp) {
  return page.locator("#workbench\\.parts\\.statusbar .statusbar-item", { hasText: text });
}

export function lens(page: Page, title: string | RegExp) {
  return page.locator(".codelens-decoration a:visible", { hasText: title });
}

export function toast(page: Page, text: string | RegExp) {
  return page.locator(".notifications-toasts .notification-toast", { hasText: text });
}

export async function runCommand(page: Page, title: string): Promise<void> {
  await page.keyboard.press("F1");
  const palette = page.locator(".quick-input-widget input");
  await palette.fill(`>${title}`);
  await page.locator(".quick-input-widget .monaco-list-row", { hasText: title }).first().waitFor();
  await palette.press("Enter");
}

/**
 * A story's steps, each a test: after a failure the rest are skipped, and the failure leaves a
 * screenshot and the extension's logs (`channels`).
 */
export function storySteps(
  editor: () => Editor,
  channels: string[] = ["Plan Mode"],
): (name: string, body: (page: Page) => Promise<void>) => void {
  let failed = false;
  return (name, body) => {
    test(name, async (t: TestContext) => {
      if (failed) {
        t.skip("an earlier step failed");
        return;
      }
      try {
        await body(editor().page);
      } catch (error) {
        failed = true;
        const shot = await editor()
          .screenshot(`failed-${name.replace(/\W+/g, "-")}`)
          .catch(() => "none");
        const logs = channels.map((c) => `--- ${c} output ---\n${editor().clientLog(c)}`);
        console.error(`screenshot: ${shot}\n${logs.join("\n")}`);
        throw error;
      }
    });
  };
}

/** Opens a file through Quick Open (the palette without its `>`), as a user types its name. */
export async function quickOpen(page: Page, name: string): Promise<void> {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input");
  await input.fill(name);
  await page.locator(".quick-input-widget .monaco-list-row", { hasText: name }).first().waitFor();
  await input.press("Enter");
  await page.locator(".tabs-container .tab.active", { hasText: name }).waitFor({ timeout: 10_000 });
}
