/**
 * @module `npm run gen:schemas` writes the two generated schema files; test/unit/schemas.test.ts fails when
 * either is out of date:
 * - src/compile/input/schema/gateway-api-fields.json, the field names of every Gateway API kind kedge reads, for
 *   each API version, as the pinned Gateway API release defines them. They are read from the TypeScript
 *   declarations of @kubernetes-models/gateway-api (generated from the release's Go types), so that an
 *   unknown field (a typo such as `vaule`) is found, which the package's own validators let through.
 * - config/kedge.schema.json, kedge.yaml's schema as a JSON Schema, for editors.
 *
 * A node of the tree: 0 a scalar, `{ o: { field: node } }` an object with these fields, `{ a: node }` a
 * list of node, `{ m: node }` a map with free keys, 1 anything (a free-form value).
 */
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import ts from "typescript";
import { edgeConfigJsonSchema } from "../../src/compile/input/edge-config-schema";

export type FieldNode = 0 | 1 | { o: Record<string, FieldNode> } | { a: FieldNode } | { m: FieldNode };

const ROOT = join(import.meta.dirname, "..", "..");
export const FIELDS_FILE = join(ROOT, "src", "compile", "input", "schema", "gateway-api-fields.json");
export const EDGE_SCHEMA_FILE = join(ROOT, "config", "kedge.schema.json");

/** The kinds kedge reads from the Gateway API groups, by `group/version` folder of the package. */
export const KINDS: Record<string, string[]> = {
  "gateway.networking.k8s.io/v1": [
    "Gateway",
    "GatewayClass",
    "HTTPRoute",
    "GRPCRoute",
    "ReferenceGrant",
    "ListenerSet",
    "BackendTLSPolicy",
    "TLSRoute",
  ],
  "gateway.networking.k8s.io/v1beta1": ["Gateway", "GatewayClass", "HTTPRoute", "ReferenceGrant"],
  "gateway.networking.k8s.io/v1alpha2": ["GRPCRoute", "ReferenceGrant", "TCPRoute", "TLSRoute", "UDPRoute"],
  "gateway.networking.k8s.io/v1alpha3": ["BackendTLSPolicy", "TLSRoute"],
  "gateway.networking.x-k8s.io/v1alpha1": ["XBackendTrafficPolicy"],
};

function packageDir(): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve("@kubernetes-models/gateway-api/package.json"));
}

function treeOf(checker: ts.TypeChecker, type: ts.Type, seen: Set<ts.Type>): FieldNode {
  const nonNull = checker.getNonNullableType(type);
  if (checker.isArrayType(nonNull)) return { a: treeOf(checker, checker.getTypeArguments(nonNull as ts.TypeReference)[0]!, seen) };
  if (nonNull.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return 1;
  if (nonNull.isUnion()) {
    // A union of literals is an enum (a scalar); a union with an object keeps the object's fields.
    const objects = nonNull.types.filter((t) => t.flags & ts.TypeFlags.Object);
    return objects.length > 0 ? treeOf(checker, objects[0]!, seen) : 0;
  }
  if (!(nonNull.flags & ts.TypeFlags.Object)) return 0;
  const index = checker.getIndexInfosOfType(nonNull)[0];
  if (index) return { m: treeOf(checker, index.type, seen) };
  if (seen.has(nonNull)) return 1; // a recursive type: free below this point
  const fields: Record<string, FieldNode> = {};
  const next = new Set(seen).add(nonNull);
  for (const property of checker.getPropertiesOfType(nonNull)) {
    const declaration = property.valueDeclaration ?? property.declarations?.[0];
    if (!declaration) continue;
    fields[property.getName()] = treeOf(checker, checker.getTypeOfSymbolAtLocation(property, declaration), next);
  }
  return Object.keys(fields).length === 0 ? 1 : { o: fields };
}

/** Every kind's spec tree, by `group/version/Kind`. */
export function gatewayApiFields(): Record<string, FieldNode> {
  const dir = packageDir();
  const files = Object.entries(KINDS).flatMap(([gv, kinds]) => kinds.map((kind) => join(dir, gv, `${kind}.d.ts`)));
  const program = ts.createProgram(files, { strict: true, skipLibCheck: true, noEmit: true, types: [] });
  const checker = program.getTypeChecker();
  const result: Record<string, FieldNode> = {};
  for (const [gv, kinds] of Object.entries(KINDS)) {
    for (const kind of kinds) {
      const source = program.getSourceFile(join(dir, gv, `${kind}.d.ts`));
      const iface = source?.statements.find(
        (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === `I${kind}`,
      );
      if (!iface) throw new Error(`no interface I${kind} in ${gv}`);
      const spec = checker.getPropertyOfType(checker.getTypeAtLocation(iface), "spec");
      if (!spec) throw new Error(`I${kind} has no spec`);
      result[`${gv}/${kind}`] = treeOf(checker, checker.getTypeOfSymbolAtLocation(spec, iface), new Set());
    }
  }
  return result;
}

export function fieldsText(): string {
  return `${JSON.stringify(gatewayApiFields(), null, 1)}\n`;
}

export function edgeSchemaText(): string {
  return `${JSON.stringify(edgeConfigJsonSchema(), null, 2)}\n`;
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  writeFileSync(FIELDS_FILE, fieldsText());
  writeFileSync(EDGE_SCHEMA_FILE, edgeSchemaText());
  console.log(`wrote ${FIELDS_FILE} and ${EDGE_SCHEMA_FILE}`);
}
