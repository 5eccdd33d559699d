/**
 * The Plans view in the Explorer (docs/protocol.md §12.3): every plan of the workspace with its
 * status, agent and dates (`planMode/listPlans`), grouped by folder when the window has
 * several; under each plan its versions (`planMode/listRevisions`). A version opens read-only
 * (`planMode/revisionText`, served by RevisionDocuments), two are compared in a diff, and a
 * saved or rejected plan is taken up again (`planMode/takeUpPlan`).
 */

import * as vscode from "vscode";

import { COMMANDS } from "./commands";
import {
  canTakeUp,
  diffPair,
  type LibraryPlan,
  type ListPlansResult,
  type ListRevisionsResult,
  planDescription,
  planTooltip,
  type Revision,
  revisionDescription,
  revisionLabel,
  type RevisionTextParams,
  type RevisionTextResult,
  sortPlans,
  statusLabel,
  STATUS_ICONS,
  type TakeUpPlanParams,
  type TakeUpPlanResult,
} from "./libraryModel";
import { LIST_PLANS, LIST_REVISIONS, REVISION_TEXT, TAKE_UP_PLAN } from "./protocol";
import type { FolderServer } from "./servers/folderServer";
import type { WorkspaceServers } from "./servers/workspaceServers";

const REVISION_SCHEME = "planmode-revision";
const VIEW = "planMode.plans";
// The tree asks again once changes pause (an agent writing a plan changes it many times).
const SETTLE_MS = 400;

interface FolderNode {
  kind: "folder";
  server: FolderServer;
}
interface PlanNode {
  kind: "plan";
  server: FolderServer;
  plan: LibraryPlan;
}
interface RevisionNode {
  kind: "revision";
  server: FolderServer;
  plan: LibraryPlan;
  revision: Revision;
  /** Every version of its plan, for "Compare with Previous". */
  all: Revision[];
}
type Node = FolderNode | PlanNode | RevisionNode;

/** The URI of one version of a plan: named `<slug> (version N).md`, its plan in the query. */
function revisionUri(server: FolderServer, plan: LibraryPlan, id: number): vscode.Uri {
  const query = new URLSearchParams({
    folder: server.folder.uri.toString(),
    path: plan.path,
    id: String(id),
  });
  return vscode.Uri.from({
    scheme: REVISION_SCHEME,
    path: `/${plan.slug} (version ${id}).md`,
    query: query.toString(),
  });
}

/** Serves each version's text, read-only, from its folder's server. */
class RevisionDocuments implements vscode.TextDocumentContentProvider {
  constructor(private readonly servers: WorkspaceServers) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const query = new URLSearchParams(uri.query);
    const folder = query.get("folder") ?? "";
    const server = this.servers.all().find((s) => s.folder.uri.toString() === folder);
    const params: RevisionTextParams = {
      path: query.get("path") ?? "",
      id: Number(query.get("id")),
    };
    const result = await server?.request<RevisionTextResult>(REVISION_TEXT, params);
    return result?.text ?? "";
  }
}

export class PlansView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly view: vscode.TreeView<Node>;
  private readonly subscriptions: vscode.Disposable[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly servers: WorkspaceServers) {
    this.view = vscode.window.createTreeView(VIEW, {
      treeDataProvider: this,
      canSelectMany: true,
      showCollapseAll: true,
    });
    const watcher = vscode.workspace.createFileSystemWatcher("**/*.md");
    const later = () => this.schedule();
    this.subscriptions.push(
      this.view,
      this.changed,
      watcher,
      watcher.onDidChange(later),
      watcher.onDidCreate(later),
      watcher.onDidDelete(later),
      servers.onDidChangeState(later),
      servers.onDidChangeProgress(later),
      vscode.workspace.onDidChangeWorkspaceFolders(later),
      vscode.workspace.registerTextDocumentContentProvider(
        REVISION_SCHEME,
        new RevisionDocuments(servers),
      ),
      vscode.commands.registerCommand(COMMANDS.refreshPlans, () => this.changed.fire(undefined)),
      vscode.commands.registerCommand(COMMANDS.openRevision, (node?: Node) =>
        this.openRevision(node),
      ),
      vscode.commands.registerCommand(COMMANDS.compareWithPrevious, (node?: Node) =>
        this.compare(node, []),
      ),
      vscode.commands.registerCommand(COMMANDS.compareRevisions, (node?: Node, nodes?: Node[]) =>
        this.compare(node, nodes ?? [...this.view.selection]),
      ),
      vscode.commands.registerCommand(COMMANDS.takeUpPlan, (node?: Node) => this.takeUp(node)),
    );
  }

  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    for (const subscription of this.subscriptions) subscription.dispose();
  }

  private schedule(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.changed.fire(undefined);
    }, SETTLE_MS);
  }

  async getChildren(node?: Node): Promise<Node[]> {
    if (node === undefined) {
      const servers = this.servers.all();
      if (servers.length === 1) return this.plans(servers[0]);
      return servers.map((server) => ({ kind: "folder", server }));
    }
    if (node.kind === "folder") return this.plans(node.server);
    if (node.kind === "plan") {
      const listed = await node.server.query<ListRevisionsResult>(LIST_REVISIONS, {
        path: node.plan.path,
      });
      const all = listed?.revisions ?? [];
      return [...all].reverse().map((revision) => ({
        kind: "revision",
        server: node.server,
        plan: node.plan,
        revision,
        all,
      }));
    }
    return [];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === "folder") {
      const item = new vscode.TreeItem(
        node.server.folder.name,
        vscode.TreeItemCollapsibleState.Expanded,
      );
      item.iconPath = vscode.ThemeIcon.Folder;
      item.contextValue = "folder";
      return item;
    }
    if (node.kind === "plan") {
      const { plan } = node;
      const item = new vscode.TreeItem(plan.slug, vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `${node.server.folder.uri.toString()} ${plan.path}`;
      item.description = planDescription(plan);
      item.tooltip = planTooltip(plan);
      item.iconPath = new vscode.ThemeIcon(STATUS_ICONS[plan.status ?? "drafting"]);
      item.resourceUri = vscode.Uri.file(plan.path);
      item.contextValue = canTakeUp(plan) ? "plan.takeUp" : "plan";
      item.command = {
        title: "Open Plan",
        command: "vscode.open",
        arguments: [vscode.Uri.file(plan.path)],
      };
      return item;
    }
    const { revision } = node;
    const item = new vscode.TreeItem(revisionLabel(revision));
    item.id = `${node.server.folder.uri.toString()} ${node.plan.path} ${revision.id}`;
    item.description = revisionDescription(revision);
    item.tooltip = `${revision.reason}\n${revision.author}, ${revision.time}; ${revision.lines} lines`;
    item.iconPath = new vscode.ThemeIcon(revision.author === "agent" ? "hubot" : "person");
    // Compare with Previous: not on the first version.
    const first = Math.min(...node.all.map((r) => r.id));
    item.contextValue = revision.id > first ? "revision.hasPrevious" : "revision";
    item.command = { title: "Open Version", command: COMMANDS.openRevision, arguments: [node] };
    return item;
  }

  private async plans(server: FolderServer): Promise<Node[]> {
    const listed = await server.query<ListPlansResult>(LIST_PLANS, {});
    return sortPlans(listed?.plans ?? []).map((plan) => ({ kind: "plan", server, plan }));
  }

  private async openRevision(node?: Node): Promise<void> {
    if (node?.kind !== "revision") return;
    const uri = revisionUri(node.server, node.plan, node.revision.id);
    await vscode.window.showTextDocument(uri, { preview: true });
  }

  /** The chosen version against the one before it, or two chosen versions of one plan. */
  private async compare(node: Node | undefined, nodes: readonly Node[]): Promise<void> {
    if (node?.kind !== "revision") return;
    const chosen = nodes.filter(
      (n): n is RevisionNode => n.kind === "revision" && n.plan.path === node.plan.path,
    );
    const ids = chosen.length >= 2 ? chosen.map((n) => n.revision.id) : [node.revision.id];
    const pair = diffPair(node.all, ids);
    if (pair === undefined) {
      void vscode.window.showInformationMessage(
        chosen.length >= 2
          ? "Choose two versions of one plan."
          : "The first version has none before it.",
      );
      return;
    }
    const [from, to] = pair;
    await vscode.commands.executeCommand(
      "vscode.diff",
      revisionUri(node.server, node.plan, from),
      revisionUri(node.server, node.plan, to),
      `${node.plan.slug}: version ${from} ↔ ${to}`,
    );
  }

  /** A saved or rejected plan becomes its session's plan again; from the palette, pick one. */
  private async takeUp(node?: Node): Promise<void> {
    const target = node?.kind === "plan" ? node : await this.pickSaved();
    if (target === undefined) return;
    // Its own session while the server knows it, else the one the status bar shows.
    const sessions = target.server.sessions;
    const own = sessions.all().find((s) => s.sessionId === target.plan.sessionId);
    const sessionId = (own ?? sessions.current())?.sessionId;
    const params: TakeUpPlanParams = {
      path: target.plan.path,
      ...(sessionId !== undefined ? { sessionId } : {}),
    };
    const result = await target.server.request<TakeUpPlanResult>(TAKE_UP_PLAN, params);
    if (result === undefined) return;
    target.server.update(result.state);
    this.changed.fire(undefined);
    await vscode.window.showTextDocument(vscode.Uri.file(result.planFilePath));
    void vscode.window.showInformationMessage(
      `Plan ${target.plan.slug} taken up again in ${vscode.workspace.asRelativePath(result.planFilePath)}: tell the agent to take it up; its next exit puts it under review.`,
    );
  }

  private async pickSaved(): Promise<PlanNode | undefined> {
    const nodes: PlanNode[] = [];
    for (const server of this.servers.all()) {
      for (const node of await this.plans(server))
        if (node.kind === "plan" && canTakeUp(node.plan)) nodes.push(node);
    }
    if (nodes.length === 0) {
      void vscode.window.showInformationMessage("No saved or rejected plan to take up.");
      return undefined;
    }
    const picked = await vscode.window.showQuickPick(
      nodes.map((node) => ({
        label: node.plan.slug,
        description: statusLabel(node.plan),
        detail: node.plan.path,
        node,
      })),
      { title: "Plan Mode: take up a plan again" },
    );
    return picked?.node;
  }
}
