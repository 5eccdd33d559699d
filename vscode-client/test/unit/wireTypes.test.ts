// The client's wire types agree with the server's models: every exported interface of the files
// that declare them is checked against its definition in wire-schema.json (generated from
// server/planmode/lsp by `make schema`) for property names, optionality and nullability.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

import ts from "typescript";

import { clientRoot } from "./helpers";

/** The client's files that declare wire types: each exported interface in them is one. */
const WIRE_FILES = [
  "src/state.ts",
  "src/args.ts",
  "src/progressModel.ts",
  "src/libraryModel.ts",
  "src/hunkMarks.ts",
];

/** A TypeScript interface whose schema definition has another name. */
const DEFINITION_OF: Record<string, string> = {};

/**
 * Properties the client reads as optional although this server always sends them: the
 * extension also runs against an older server (a `planMode.server.pythonPath` of the user's)
 * that did not have them yet.
 */
const OLDER_SERVERS: Record<string, string[]> = {
  Approval: ["grants"],
  SessionState: ["sandbox"],
  LibraryPlan: ["status"],
};

interface PropertySchema {
  type?: string | string[];
  anyOf?: PropertySchema[];
  enum?: unknown[];
  const?: unknown;
  $ref?: string;
  items?: PropertySchema;
}

interface Definition {
  properties?: Record<string, PropertySchema>;
  required?: string[];
}

interface Endpoint {
  params: PropertySchema;
  result?: PropertySchema;
}

export interface WireSchema {
  requests?: Record<string, Endpoint>;
  commands?: Record<string, Endpoint>;
  notifications?: Record<string, Endpoint>;
  $defs: Record<string, Definition>;
}

interface TsProperty {
  optional: boolean;
  nullable: boolean;
}

/** Every exported interface of `files` with its properties (inherited ones included). */
export function tsInterfaces(files: string[]): Map<string, Map<string, TsProperty>> {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const found = new Map<string, Map<string, TsProperty>>();
  for (const file of files) {
    const source = program.getSourceFile(file);
    assert.ok(source !== undefined, `TypeScript did not read ${file}`);
    ts.forEachChild(source, (node) => {
      if (!ts.isInterfaceDeclaration(node)) return;
      const exported = node.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
      if (!exported) return;
      const properties = new Map<string, TsProperty>();
      for (const symbol of checker.getPropertiesOfType(checker.getTypeAtLocation(node.name))) {
        const type = checker.getTypeOfSymbol(symbol);
        const parts = type.isUnion() ? type.types : [type];
        properties.set(symbol.getName(), {
          optional: (symbol.flags & ts.SymbolFlags.Optional) !== 0,
          nullable: parts.some((t) => (t.flags & ts.TypeFlags.Null) !== 0),
        });
      }
      found.set(node.name.text, properties);
    });
  }
  return found;
}

function nullable(schema: PropertySchema): boolean {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return (
    types.includes("null") ||
    schema.const === null ||
    (schema.enum?.includes(null) ?? false) ||
    (schema.anyOf?.some(nullable) ?? false)
  );
}

/** The names of the definitions `schema` refers to, directly or through nested ones. */
function reachable(roots: PropertySchema[], defs: Record<string, Definition>): Set<string> {
  const seen = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach(visit);
    } else if (typeof node === "object" && node !== null) {
      const ref = (node as PropertySchema).$ref;
      if (typeof ref === "string") {
        const name = ref.replace("#/$defs/", "");
        if (!seen.has(name)) {
          seen.add(name);
          visit(defs[name]);
        }
      }
      Object.values(node).forEach(visit);
    }
  };
  visit(roots);
  return seen;
}

/** Every disagreement between the interfaces and the schema, one sentence each. */
export function disagreements(
  interfaces: Map<string, Map<string, TsProperty>>,
  schema: WireSchema,
  definitionOf: Record<string, string> = DEFINITION_OF,
  olderServers: Record<string, string[]> = OLDER_SERVERS,
): string[] {
  const endpoints = [
    ...Object.values(schema.requests ?? {}),
    ...Object.values(schema.commands ?? {}),
  ];
  const fromClient = reachable(
    endpoints.map((e) => e.params),
    schema.$defs,
  );
  const fromServer = reachable(
    [
      ...endpoints.flatMap((e) => (e.result ? [e.result] : [])),
      ...Object.values(schema.notifications ?? {}).map((n) => n.params),
    ],
    schema.$defs,
  );
  const problems: string[] = [];
  for (const [name, properties] of interfaces) {
    const defName = definitionOf[name] ?? name;
    const definition = schema.$defs[defName];
    if (definition === undefined) {
      problems.push(`${name}: no definition ${defName} in the schema (map it in DEFINITION_OF)`);
      continue;
    }
    const schemaProperties = definition.properties ?? {};
    const required = new Set(definition.required ?? []);
    const tolerated = new Set(olderServers[name] ?? []);
    const sent = fromServer.has(defName);
    for (const [key, ts] of properties) {
      const property = schemaProperties[key];
      const where = `${name}.${key}`;
      if (property === undefined) {
        problems.push(`${where}: not in the schema's ${defName}`);
        continue;
      }
      // What the server sends must be declared exactly; what the client sends must be accepted.
      if (required.has(key) && ts.optional && !(sent && tolerated.has(key)))
        problems.push(`${where}: required in the schema, optional in TypeScript`);
      if (sent && !required.has(key) && !ts.optional)
        problems.push(`${where}: optional in the schema, required in TypeScript`);
      if (sent && nullable(property) && !ts.nullable)
        problems.push(`${where}: may be null in the schema, not in TypeScript`);
      if (!nullable(property) && ts.nullable)
        problems.push(`${where}: never null in the schema, nullable in TypeScript`);
    }
    if (sent) {
      for (const key of Object.keys(schemaProperties)) {
        if (!properties.has(key))
          problems.push(`${name}.${key}: sent by the server, missing in TypeScript`);
      }
    }
    if (!fromServer.has(defName) && !fromClient.has(defName))
      problems.push(`${name}: ${defName} is in no request, command or notification`);
  }
  return problems;
}

function readSchema(): WireSchema {
  const path = join(clientRoot(), "test", "unit", "wire-schema.json");
  return JSON.parse(readFileSync(path, "utf8")) as WireSchema;
}

test("the client's wire interfaces agree with the server's schema", () => {
  const interfaces = tsInterfaces(WIRE_FILES.map((file) => join(clientRoot(), file)));
  for (const name of ["SessionState", "EnterResult", "OkResult", "ApproveParams"])
    assert.ok(interfaces.has(name), `no ${name} interface: the test lost its subject`);
  assert.deepEqual(disagreements(interfaces, readSchema()), []);
});

test("every kind of disagreement is found", () => {
  const dir = mkdtempSync(join(tmpdir(), "planmode-wire-"));
  try {
    const file = join(dir, "wire.ts");
    writeFileSync(
      file,
      [
        "interface Base { id: string }",
        "export interface Thing extends Base {",
        "  name?: string;", // required in the schema
        "  note: string;", // may be absent in the schema
        "  owner: string;", // may be null in the schema
        "  size: number | null;", // never null in the schema
        "  extra: boolean;", // not in the schema
        "  old?: string;", // tolerated: older servers
        "}",
        "export interface ThingParams { id?: string; label?: string | null; flag: true }",
        "export interface Unmapped { id: string }",
        "export interface Renamed { id: string }",
        "interface Private { whatever: string }",
      ].join("\n"),
    );
    const schema: WireSchema = {
      requests: {
        "x/get": { params: { $ref: "#/$defs/ThingParams" }, result: { $ref: "#/$defs/Thing" } },
      },
      notifications: { "x/changed": { params: { $ref: "#/$defs/Other" } } },
      $defs: {
        Thing: {
          properties: {
            id: { type: "string" },
            name: { type: "string" },
            note: { type: "string" },
            owner: { anyOf: [{ type: "string" }, { type: "null" }] },
            size: { type: "integer" },
            old: { type: "string" },
            missing: { type: "string" },
          },
          required: ["id", "name", "owner", "size", "old", "missing"],
        },
        ThingParams: {
          properties: {
            id: { type: "string" },
            label: { type: "string" },
            flag: { type: "boolean" },
          },
          required: ["id"],
        },
        Other: { properties: { id: { type: "string" } }, required: ["id"] },
        Lonely: { properties: { id: { type: "string" } }, required: ["id"] },
      },
    };
    const problems = disagreements(
      tsInterfaces([file]),
      schema,
      { Renamed: "Lonely" },
      { Thing: ["old"] },
    );
    assert.deepEqual(problems, [
      "Thing.name: required in the schema, optional in TypeScript",
      "Thing.note: optional in the schema, required in TypeScript",
      "Thing.owner: may be null in the schema, not in TypeScript",
      "Thing.size: never null in the schema, nullable in TypeScript",
      "Thing.extra: not in the schema's Thing",
      "Thing.missing: sent by the server, missing in TypeScript",
      "ThingParams.id: required in the schema, optional in TypeScript",
      "ThingParams.label: never null in the schema, nullable in TypeScript",
      "Unmapped: no definition Unmapped in the schema (map it in DEFINITION_OF)",
      "Renamed: Lonely is in no request, command or notification",
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
