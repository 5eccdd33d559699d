/**
 * Which documents one folder's server sees. A document inside a workspace folder is that
 * folder's alone (the innermost one, where folders nest): its lenses, code actions and
 * diagnostics come from its own server. A document outside every folder goes to every server:
 * Claude Code keeps its plans in ~/.claude/plans (docs/protocol.md §3, adopted plan files),
 * and only the server whose session planned one has lenses for it.
 *
 * A document selector cannot say "not inside another folder", so the selector takes every
 * Markdown file and this middleware lets through what is the folder's. What was opened on the
 * server stays synced until it is closed, even when the folders change meanwhile.
 */

import * as vscode from "vscode";
import type { Middleware } from "vscode-languageclient/node";

export class DocumentScope {
  private readonly synced = new Set<string>();

  constructor(private readonly folder: vscode.WorkspaceFolder) {}

  includes(uri: vscode.Uri): boolean {
    const owner = vscode.workspace.getWorkspaceFolder(uri);
    return owner === undefined || owner.uri.toString() === this.folder.uri.toString();
  }

  middleware(): Middleware {
    const synced = (document: vscode.TextDocument) => this.synced.has(document.uri.toString());
    return {
      didOpen: async (document, next) => {
        if (!this.includes(document.uri)) return;
        this.synced.add(document.uri.toString());
        await next(document);
      },
      didChange: async (event, next) => {
        if (synced(event.document)) await next(event);
      },
      willSave: async (event, next) => {
        if (synced(event.document)) await next(event);
      },
      willSaveWaitUntil: (event, next) =>
        synced(event.document) ? next(event) : Promise.resolve([]),
      didSave: async (document, next) => {
        if (synced(document)) await next(document);
      },
      didClose: async (document, next) => {
        if (this.synced.delete(document.uri.toString())) await next(document);
      },
      provideCodeLenses: (document, token, next) => (synced(document) ? next(document, token) : []),
      provideCodeActions: (document, range, context, token, next) =>
        synced(document) ? next(document, range, context, token) : [],
    };
  }
}
