// ESLint for the client: typescript-eslint's recommended type-checked rules over src/ and test/
// (the project in tsconfig.json), the plain recommended rules over the build scripts. Layout is
// prettier's job (npm run format), so no formatting rules here.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "out/", "server/", ".e2e/", "node_modules/"] },
  {
    files: ["src/**/*.ts", "test/**/*.ts"],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // `const { DROPPED: _d, ...rest } = obj` is how a copy leaves keys out.
      "@typescript-eslint/no-unused-vars": ["error", { ignoreRestSiblings: true }],
      // What the code already holds to, kept: type-only imports marked `type`, strict equality,
      // a switch over a union names every member.
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      eqeqeq: "error",
      "@typescript-eslint/switch-exhaustiveness-check": "error",
      // node:test's test() returns a promise the runner itself awaits.
      "@typescript-eslint/no-floating-promises": [
        "error",
        {
          allowForKnownSafeCalls: [
            { from: "package", package: "node:test", name: ["test", "describe", "it", "suite"] },
          ],
        },
      ],
    },
  },
  {
    files: ["scripts/**/*.mjs", "eslint.config.mjs"],
    extends: [js.configs.recommended],
    languageOptions: { globals: { process: "readonly" } },
  },
);
