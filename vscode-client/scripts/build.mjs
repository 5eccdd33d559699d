// Bundles the extension (dist/) and, with --tests, the tests (out/) with esbuild.
//   node scripts/build.mjs               dist/extension.js with source maps
//   node scripts/build.mjs --production  minified, no source maps (what the .vsix ships)
//   node scripts/build.mjs --tests       out/unit/*.test.js and out/e2e/*.test.js
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const production = process.argv.includes("--production");
const tests = process.argv.includes("--tests");

const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  logLevel: "warning",
};

function testEntries(dir) {
  return readdirSync(join(root, dir))
    .filter((name) => name.endsWith(".test.ts"))
    .map((name) => join(root, dir, name));
}

if (tests) {
  await esbuild.build({
    ...common,
    entryPoints: testEntries("test/unit"),
    outdir: join(root, "out/unit"),
    // The TypeScript compiler (wireTypes.test.ts reads the client's interfaces with it) is
    // loaded from node_modules as it is, not bundled.
    external: ["vscode", "typescript"],
  });
  await esbuild.build({
    ...common,
    entryPoints: testEntries("test/e2e"),
    outdir: join(root, "out/e2e"),
    external: ["playwright-core"],
  });
} else {
  await esbuild.build({
    ...common,
    entryPoints: [join(root, "src/extension.ts")],
    outfile: join(root, "dist/extension.js"),
    external: ["vscode"],
    minify: production,
    sourcemap: !production,
  });
}
