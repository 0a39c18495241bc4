/**
 * The import guard on the tree, and on planted violations in a throw-away workspace so the
 * failure path stays tested.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import { checkImports, DESIGN_RULES, formatViolation, importCycles, importsOf, packageOf } from "./importGuard.js"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")

describe("import guard", () => {
  it("finds no violation in the workspace", () => {
    expect(checkImports(root).map(formatViolation)).toEqual([])
  })

  it("finds no import loop between a package's files but these (none through a shared list)", () => {
    expect(importCycles(root)).toEqual([
      "packages/domain: orders/OrderRecord.ts ─ orders/Shipment.ts",
      "packages/domain: shared/Tenant.ts ─ stores/Store.ts",
      "packages/operator-client: internal/Connection.ts ─ internal/Exchange.ts",
      "packages/operator-emulator: Messaging.ts ─ TemplateSend.ts",
      "packages/operator-emulator: TemplateList.ts ─ TemplateValidation.ts ─ Templates.ts"
    ])
  })

  it("reads static, type-only, re-exporting, dynamic and require imports with their lines", () => {
    const text = [
      'import { Effect } from "effect"',
      'import type { Kysely } from "kysely"',
      'export * from "./local.js"',
      'const later = () => import("@switchboard/domain")',
      'const pg = require("pg")',
      '// import { ignored } from "in-a-comment"',
      "const text = \"import x from 'in-a-string'\""
    ].join("\n")
    expect(importsOf(text)).toEqual([
      { specifier: "effect", line: 1 },
      { specifier: "kysely", line: 2 },
      { specifier: "./local.js", line: 3 },
      { specifier: "@switchboard/domain", line: 4 },
      { specifier: "pg", line: 5 }
    ])
    expect(packageOf("@effect/platform/HttpApi")).toBe("@effect/platform")
    expect(packageOf("kysely/helpers/postgres")).toBe("kysely")
  })
})

describe("import guard on planted violations", () => {
  const fixture = mkdtempSync(join(tmpdir(), "switchboard-import-guard-"))
  afterAll(() => rmSync(fixture, { recursive: true, force: true }))

  const write = (path: string, content: string | object) => {
    const file = join(fixture, path)
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content, null, 2))
  }
  const manifest = (name: string, fields: object = {}) => ({
    name,
    exports: { ".": "./src/index.ts", "./*": "./src/*.ts", "./contracts": "./src/contracts.ts" },
    ...fields
  })

  write("package.json", { name: "switchboard", private: true, devDependencies: { vitest: "3.2.4" } })
  write("test/setup.ts", 'import { it } from "vitest"\nimport { Effect } from "effect"\n')
  write("packages/domain/package.json", manifest("@switchboard/domain", { dependencies: { effect: "3.22.4" }, devDependencies: { vitest: "3.2.4" } }))
  write(
    "packages/domain/src/Campaign.ts",
    [
      'import { Effect } from "effect"',
      'import { Kysely } from "kysely"',
      'import { readFileSync } from "node:fs"',
      'import * as Local from "./Local.js"',
      'import { Domain } from "@switchboard/domain"'
    ].join("\n")
  )
  write("packages/domain/test/campaign.test.ts", 'import { it } from "vitest"\nimport { Effect } from "effect"\nimport fc from "fast-check"\n')
  write(
    "packages/store-sqlite/package.json",
    manifest("@switchboard/store-sqlite", {
      dependencies: { "@switchboard/domain": "workspace:*", "@switchboard/store-sql": "workspace:*", "@switchboard/http": "workspace:*" },
      devDependencies: { "@types/better-sqlite3": "7.6.13", "better-sqlite3": "12.11.1" }
    })
  )
  write(
    "packages/store-sqlite/src/StoreSqlite.ts",
    [
      'import { Repositories } from "@switchboard/store-sql"',
      'import { Api } from "@switchboard/http"',
      'import Sqlite from "better-sqlite3"',
      'import { Errors } from "@switchboard/domain/shared/Errors"',
      'import { suite } from "@switchboard/domain/contracts"',
      'const lazy = () => import("@switchboard/domain")'
    ].join("\n")
  )
  write("packages/store-sql/package.json", manifest("@switchboard/store-sql", { dependencies: { "@switchboard/domain": "workspace:*" } }))
  write("packages/store-sql/src/index.ts", 'export * from "@switchboard/domain"\n')
  write("packages/http/package.json", manifest("@switchboard/http", { dependencies: { "@switchboard/domain": "workspace:*" } }))
  write("packages/http/src/index.ts", "export {}\n")
  write(
    "packages/operator-emulator/package.json",
    manifest("@switchboard/operator-emulator", { dependencies: { "@switchboard/domain": "workspace:*" } })
  )
  write("packages/operator-emulator/src/Emulator.ts", 'import type { Store } from "@switchboard/domain"\n')
  write("packages/newcomer/package.json", manifest("@switchboard/newcomer"))

  it("reports each planted violation once, where it is, and nothing that is allowed", () => {
    expect(checkImports(fixture).map(formatViolation)).toEqual([
      'packages/domain/src/Campaign.ts:2 imports "kysely": domain ─► effect only (pure: no I/O, no SQL, no HTTP); it may import only effect and itself',
      'packages/domain/src/Campaign.ts:2 imports "kysely": kysely is not declared in packages/domain/package.json',
      'packages/domain/src/Campaign.ts:3 imports "node:fs": domain ─► effect only (pure: no I/O, no SQL, no HTTP); no Node.js builtins',
      'packages/domain/test/campaign.test.ts:3 imports "fast-check": fast-check is not declared in packages/domain/package.json',
      'packages/newcomer/package.json:1 imports "@switchboard/newcomer": a package without a rule in the import guard (test/importGuard.ts DESIGN_RULES): state its arrows as DESIGN.md draws them',
      'packages/operator-emulator/src/Emulator.ts:1 imports "@switchboard/domain": operator-emulator ─► nothing of ours: it plays the outside world; it may not import @switchboard/domain',
      'packages/store-sqlite/src/StoreSqlite.ts:2 imports "@switchboard/http": store-sqlite ─► store-sql ─► domain; it may not import @switchboard/http',
      'packages/store-sqlite/src/StoreSqlite.ts:3 imports "better-sqlite3": better-sqlite3 is declared only in devDependencies of @switchboard/store-sqlite, but sources ship: declare it in dependencies',
      'packages/store-sqlite/src/StoreSqlite.ts:4 imports "@switchboard/domain/shared/Errors": a deep import into @switchboard/domain: import from "@switchboard/domain" (or a subpath its exports name)',
      'test/setup.ts:2 imports "effect": effect is not declared in package.json'
    ])
  })

  it("names an import loop between a package's files, and no longer once the shared type has a file of its own", () => {
    write("packages/http/src/List.ts", 'import { one } from "./items/One.js"\nexport type Item = string\nexport const list = [one]\n')
    write("packages/http/src/items/One.ts", 'import type { Item } from "../List.js"\nexport const one: Item = "one"\n')
    expect(importCycles(fixture)).toEqual(["packages/http: List.ts ─ items/One.ts"])
    write("packages/http/src/Item.ts", "export type Item = string\n")
    write("packages/http/src/items/One.ts", 'import type { Item } from "../Item.js"\nexport const one: Item = "one"\n')
    expect(importCycles(fixture)).toEqual([])
  })

  it("passes once the violations are gone", () => {
    const rules = { ...DESIGN_RULES, "@switchboard/newcomer": { ours: [], why: "newcomer ─► nothing" } }
    write("packages/domain/src/Campaign.ts", 'import { Effect } from "effect"\nimport * as Local from "./Local.js"\n')
    write("packages/domain/test/campaign.test.ts", 'import { it } from "vitest"\nimport { Effect } from "effect"\n')
    write("packages/operator-emulator/src/Emulator.ts", 'import { createServer } from "node:http"\n')
    write(
      "packages/store-sqlite/src/StoreSqlite.ts",
      'import { Repositories } from "@switchboard/store-sql"\nimport { suite } from "@switchboard/domain/contracts"\nconst lazy = () => import("@switchboard/domain")\n'
    )
    write("test/setup.ts", 'import { it } from "vitest"\n')
    expect(checkImports(fixture, rules).map(formatViolation)).toEqual([])
  })
})
