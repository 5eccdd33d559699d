/**
 * Which Python runs the server: the resolution order, with no VS Code in it (so it is tested
 * on its own).
 *
 * 1. `planMode.server.pythonPath`, when the user set it — used as it is, or reported broken;
 * 2. the Python extension's selected interpreter, if it has planmode;
 * 3. `python3` on PATH, if it has planmode;
 * 4. the extension's private environment in its global storage, created after the user's
 *    consent (see privateEnvironment.ts) and updated to the bundled wheel's version without
 *    asking again.
 */

export type Source = "setting" | "pythonExtension" | "path" | "private";

export const SOURCE_LABELS: Readonly<Record<Source, string>> = {
  setting: "planMode.server.pythonPath",
  pythonExtension: "the Python extension's selected interpreter",
  path: "python3 on PATH",
  private: "the extension's private environment",
};

/** What running `python -c "import planmode"` found out. */
export type Probe = { ok: true; version: string } | { ok: false; reason: string };

export interface Environment {
  /** `planMode.server.pythonPath` when the user set it (blank counts as unset). */
  setting: string | undefined;
  /** The Python extension's interpreter; undefined without the extension or a selection. */
  pythonExtension(): Promise<string | undefined>;
  /** The interpreter of the private environment (it may not exist yet). */
  privatePython: string;
  /** The version of the planmode wheel bundled with the extension, if there is one. */
  bundledVersion: string | undefined;
  /** Whether `python` can import planmode, and its version. */
  probe(python: string): Promise<Probe>;
}

export interface Found {
  kind: "found";
  source: Source;
  python: string;
  version: string;
  /** One line per candidate tried, in order, for the output channel. */
  tried: string[];
}

/** The user's own setting names an interpreter without planmode: theirs to fix. */
export interface SettingBroken {
  kind: "settingBroken";
  python: string;
  reason: string;
  tried: string[];
}

/** Nothing found: the private environment must be created (or updated, when `update`). */
export interface NeedsEnvironment {
  kind: "needsEnvironment";
  /** The private environment exists with another planmode: refresh it without asking. */
  update: boolean;
  /** Why, in a few words, e.g. "python3 has no planmode". */
  reason: string;
  tried: string[];
}

export type Resolution = Found | SettingBroken | NeedsEnvironment;

export const PATH_PYTHON = "python3";

function describe(python: string, source: Source, probe: Probe): string {
  const what = source === "path" ? python : `${python} (${SOURCE_LABELS[source]})`;
  return probe.ok ? `${what}: planmode ${probe.version}` : `${what} ${probe.reason}`;
}

export async function resolveServer(env: Environment): Promise<Resolution> {
  const tried: string[] = [];
  if (env.setting !== undefined) {
    const probe = await env.probe(env.setting);
    tried.push(describe(env.setting, "setting", probe));
    if (probe.ok) {
      return {
        kind: "found",
        source: "setting",
        python: env.setting,
        version: probe.version,
        tried,
      };
    }
    return {
      kind: "settingBroken",
      python: env.setting,
      reason: `${env.setting} ${probe.reason}`,
      tried,
    };
  }

  const candidates: Array<[Source, string | undefined]> = [
    ["pythonExtension", await env.pythonExtension()],
    ["path", PATH_PYTHON],
  ];
  let firstReason: string | undefined;
  for (const [source, python] of candidates) {
    if (python === undefined) {
      continue;
    }
    const probe = await env.probe(python);
    tried.push(describe(python, source, probe));
    if (probe.ok) {
      return { kind: "found", source, python, version: probe.version, tried };
    }
    firstReason ??= `${python} ${probe.reason}`;
  }

  const privateProbe = await env.probe(env.privatePython);
  tried.push(describe(env.privatePython, "private", privateProbe));
  if (privateProbe.ok) {
    const outdated =
      env.bundledVersion !== undefined && privateProbe.version !== env.bundledVersion;
    if (!outdated) {
      return {
        kind: "found",
        source: "private",
        python: env.privatePython,
        version: privateProbe.version,
        tried,
      };
    }
    return {
      kind: "needsEnvironment",
      update: true,
      reason: `the private environment has planmode ${privateProbe.version}, the extension brings ${env.bundledVersion}`,
      tried,
    };
  }
  return {
    kind: "needsEnvironment",
    update: false,
    reason: firstReason ?? `no Python has planmode`,
    tried,
  };
}

/** The first interpreter new enough to create the private environment with (3.11+). */
export async function chooseBasePython(
  candidates: ReadonlyArray<string | undefined>,
  version: (python: string) => Promise<[number, number] | undefined>,
): Promise<{ python: string } | { python: undefined; reason: string }> {
  const seen = new Set<string>();
  const notes: string[] = [];
  for (const python of candidates) {
    if (python === undefined || seen.has(python)) {
      continue;
    }
    seen.add(python);
    const found = await version(python);
    if (found === undefined) {
      notes.push(`${python} was not found`);
    } else if (found[0] > 3 || (found[0] === 3 && found[1] >= 11)) {
      return { python };
    } else {
      notes.push(`${python} is Python ${found[0]}.${found[1]}`);
    }
  }
  return { python: undefined, reason: `planmode needs Python 3.11 or newer (${notes.join("; ")})` };
}

/** The version in a wheel's file name: `planmode-0.1.0-py3-none-any.whl` → `0.1.0`. */
export function wheelVersion(fileName: string): string | undefined {
  const match = /^planmode-([^-]+)-.*\.whl$/.exec(fileName);
  return match?.[1];
}

/** The interpreter inside a virtual environment directory. */
export function venvPython(dir: string, platform: NodeJS.Platform): string {
  return platform === "win32" ? `${dir}\\Scripts\\python.exe` : `${dir}/bin/python`;
}

/** The probe's answer read from the probe script's output (see interpreters.ts). */
export function readProbe(
  exitCode: number | null,
  stdout: string,
  stderr: string,
  spawnError?: string,
): Probe {
  if (spawnError !== undefined) {
    return {
      ok: false,
      reason: spawnError === "ENOENT" ? "was not found" : `could not run (${spawnError})`,
    };
  }
  const version = /^planmode (\S+)$/m.exec(stdout)?.[1];
  if (exitCode === 0 && version !== undefined) {
    return { ok: true, version };
  }
  if (/No module named '?planmode/.test(stderr)) {
    return { ok: false, reason: "has no planmode" };
  }
  const last = stderr.trim().split("\n").pop()?.trim();
  return { ok: false, reason: `cannot import planmode (${last || `exit code ${exitCode}`})` };
}
