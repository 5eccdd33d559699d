import assert from "node:assert/strict";
import { test } from "node:test";

import {
  chooseBasePython,
  readProbe,
  resolveServer,
  venvPython,
  wheelVersion,
  type Environment,
  type Probe,
} from "../../src/python/resolve";

const PRIVATE = "/storage/server-env/bin/python";

/** An environment where only the interpreters in `installed` have planmode (at that version). */
function env(
  installed: Record<string, string>,
  options: { setting?: string; pythonExtension?: string; bundledVersion?: string } = {},
): Environment & { probed: string[] } {
  const probed: string[] = [];
  return {
    setting: options.setting,
    pythonExtension: () => Promise.resolve(options.pythonExtension),
    privatePython: PRIVATE,
    bundledVersion: options.bundledVersion,
    probed,
    probe(python: string): Promise<Probe> {
      probed.push(python);
      const version = installed[python];
      return Promise.resolve(
        version === undefined ? { ok: false, reason: "has no planmode" } : { ok: true, version },
      );
    },
  };
}

test("1. the user's setting wins, and is never second-guessed", async () => {
  const found = await resolveServer(
    env({ "/venv/bin/python": "0.1.0", python3: "0.1.0" }, { setting: "/venv/bin/python" }),
  );
  assert.equal(found.kind, "found");
  assert.equal(found.kind === "found" && found.source, "setting");

  const fake = env({ python3: "0.1.0", [PRIVATE]: "0.1.0" }, { setting: "/opt/py/bin/python" });
  const broken = await resolveServer(fake);
  assert.deepEqual(
    broken.kind === "settingBroken" && broken.reason,
    "/opt/py/bin/python has no planmode",
  );
  // Nothing else is tried: a setting the user made is theirs to fix.
  assert.deepEqual(fake.probed, ["/opt/py/bin/python"]);
});

test("2. the Python extension's interpreter, if it has planmode", async () => {
  const found = await resolveServer(
    env(
      { "/proj/.venv/bin/python": "0.1.0", python3: "0.1.0" },
      { pythonExtension: "/proj/.venv/bin/python" },
    ),
  );
  assert.deepEqual(found.kind === "found" && [found.source, found.python], [
    "pythonExtension",
    "/proj/.venv/bin/python",
  ]);
});

test("3. python3 on PATH when the extension's interpreter has no planmode", async () => {
  const found = await resolveServer(
    env({ python3: "0.1.0" }, { pythonExtension: "/usr/bin/python3.12" }),
  );
  assert.deepEqual(found.kind === "found" && [found.source, found.python], ["path", "python3"]);
  assert.match(
    found.tried[0],
    /python3\.12 \(the Python extension's selected interpreter\) has no planmode/,
  );
});

test("4. the private environment when it is there and current", async () => {
  const found = await resolveServer(env({ [PRIVATE]: "0.1.0" }, { bundledVersion: "0.1.0" }));
  assert.deepEqual(found.kind === "found" && [found.source, found.python, found.version], [
    "private",
    PRIVATE,
    "0.1.0",
  ]);
  assert.equal(found.tried.length, 2); // python3, then the private environment
});

test("nothing found: the environment must be created, and the reason names the first Python tried", async () => {
  const needs = await resolveServer(env({}, { bundledVersion: "0.1.0" }));
  assert.deepEqual(needs.kind === "needsEnvironment" && [needs.update, needs.reason], [
    false,
    "python3 has no planmode",
  ]);
  const withExtension = await resolveServer(env({}, { pythonExtension: "/x/python" }));
  assert.equal(
    withExtension.kind === "needsEnvironment" && withExtension.reason,
    "/x/python has no planmode",
  );
});

test("a private environment older than the bundled wheel is updated without asking again", async () => {
  const needs = await resolveServer(env({ [PRIVATE]: "0.0.9" }, { bundledVersion: "0.1.0" }));
  assert.equal(needs.kind, "needsEnvironment");
  assert.equal(needs.kind === "needsEnvironment" && needs.update, true);
  assert.match(needs.kind === "needsEnvironment" ? needs.reason : "", /0\.0\.9.*0\.1\.0/);
  // Without a bundled wheel (installed from the index) any version is fine.
  const found = await resolveServer(env({ [PRIVATE]: "0.0.9" }));
  assert.equal(found.kind, "found");
});

test("the base of the private environment is the first Python 3.11+", async () => {
  const versions: Record<string, [number, number]> = { "/old/python": [3, 9], python3: [3, 12] };
  const version = (python: string) => Promise.resolve(versions[python]);
  assert.deepEqual(
    await chooseBasePython(["/old/python", undefined, "python3", "python"], version),
    { python: "python3" },
  );
  const none = await chooseBasePython(["/old/python", "python"], version);
  assert.equal(none.python, undefined);
  assert.match(
    "reason" in none ? none.reason : "",
    /3\.11 or newer \(\/old\/python is Python 3\.9; python was not found\)/,
  );
});

test("the probe's output says planmode's version, or why not", () => {
  assert.deepEqual(readProbe(0, "planmode 0.1.0\n", ""), { ok: true, version: "0.1.0" });
  assert.deepEqual(
    readProbe(1, "", "Traceback…\nModuleNotFoundError: No module named 'planmode'\n"),
    {
      ok: false,
      reason: "has no planmode",
    },
  );
  assert.deepEqual(readProbe(null, "", "", "ENOENT"), { ok: false, reason: "was not found" });
  assert.deepEqual(readProbe(1, "", "ImportError: cannot import name 'x' from 'pygls'\n"), {
    ok: false,
    reason: "cannot import planmode (ImportError: cannot import name 'x' from 'pygls')",
  });
});

test("wheel names and venv layouts", () => {
  assert.equal(wheelVersion("planmode-0.1.0-py3-none-any.whl"), "0.1.0");
  assert.equal(wheelVersion("other-0.1.0-py3-none-any.whl"), undefined);
  assert.equal(venvPython("/s/env", "linux"), "/s/env/bin/python");
  assert.equal(venvPython("C:\\s\\env", "win32"), "C:\\s\\env\\Scripts\\python.exe");
});
