/**
 * The Python extension (ms-python.python), when installed: the interpreter it has selected
 * and its news when the user selects another, through its public `environments` API.
 */

import * as vscode from "vscode";

/** The subset of ms-python.python's exported API used here (`@vscode/python-extension`). */
interface PythonExtensionApi {
  ready?: Promise<void>;
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { id: string; path: string };
    resolveEnvironment(
      environment: { id: string; path: string } | string,
    ): Promise<{ executable: { uri?: vscode.Uri } } | undefined>;
    onDidChangeActiveEnvironmentPath?: vscode.Event<{ resource?: { uri: vscode.Uri } }>;
  };
}

async function pythonExtensionApi(): Promise<PythonExtensionApi | undefined> {
  const extension = vscode.extensions.getExtension<PythonExtensionApi>("ms-python.python");
  if (extension === undefined) {
    return undefined;
  }
  try {
    const api = extension.isActive ? extension.exports : await extension.activate();
    await api?.ready;
    return api?.environments ? api : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The interpreter the Python extension has selected for a workspace folder (by default the
 * first), if any.
 */
export async function pythonExtensionInterpreter(
  folder: vscode.Uri | undefined = vscode.workspace.workspaceFolders?.[0]?.uri,
): Promise<string | undefined> {
  const api = await pythonExtensionApi();
  if (api?.environments === undefined) {
    return undefined;
  }
  try {
    const active = api.environments.getActiveEnvironmentPath(folder);
    const resolved = await api.environments.resolveEnvironment(active);
    return resolved?.executable.uri?.fsPath ?? (active.path || undefined);
  } catch {
    return undefined;
  }
}

/**
 * Calls `listener` when the user selects another interpreter in the Python extension, with
 * the folder it was selected for (undefined: for the whole workspace).
 */
export async function onPythonInterpreterChange(
  listener: (folder: vscode.Uri | undefined) => void,
): Promise<vscode.Disposable | undefined> {
  const api = await pythonExtensionApi();
  return api?.environments?.onDidChangeActiveEnvironmentPath?.((event) =>
    listener(event.resource?.uri),
  );
}
