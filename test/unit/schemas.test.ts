/** The generated schema files are what `npm run gen:schemas` writes from their sources today. */
import { readFileSync } from "node:fs";
import { describe, it } from "vitest";
import { EDGE_SCHEMA_FILE, edgeSchemaText, FIELDS_FILE, fieldsText } from "../../scripts/tools/gen-schemas";

describe("generated schemas", () => {
  it("gateway-api-fields.json holds the pinned Gateway API release's field names (npm run gen:schemas)", ({ expect }) => {
    expect(readFileSync(FIELDS_FILE, "utf8")).toBe(fieldsText());
  });

  it("config/kedge.schema.json is kedge.yaml's schema (npm run gen:schemas)", ({ expect }) => {
    expect(readFileSync(EDGE_SCHEMA_FILE, "utf8")).toBe(edgeSchemaText());
  });
});
