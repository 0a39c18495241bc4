/**
 * The Docker files, read as Docker and compose would (there is no Docker engine here to build
 * with): `.dockerignore` keeps `.env` files (not `.env.example`), node_modules and build
 * output out of the build context; the runtime stage holds only the bundle and production
 * dependencies (`pnpm deploy --prod`), runs as a user other than root and has a health check;
 * compose gives every process the settings of `.env` (env_file) and refuses to start while a
 * required secret is unset (`${VAR:?message}`), with no default secret anywhere.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { root } from "@switchboard/testing"
import { describe, expect, it } from "vitest"
import { nodeBundle } from "../scripts/bundle-options.mjs"
import * as Environment from "../src/Environment.js"

const read = (path: string) => readFileSync(join(root, path), "utf8")

/** `.dockerignore` as Docker applies it: each pattern in order, the last that matches decides, `!` re-includes. */
const ignoredBy = (dockerignore: string) => {
  const rules = dockerignore
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const include = line.startsWith("!")
      const pattern = (include ? line.slice(1) : line).replace(/^\/+|\/+$/g, "")
      const source = pattern
        .split(/(\*\*\/|\*\*|\*|\?)/)
        .map((part) =>
          part === "**/"
            ? "(?:.*/)?"
            : part === "**"
              ? ".*"
              : part === "*"
                ? "[^/]*"
                : part === "?"
                  ? "[^/]"
                  : part.replace(/[.+^${}()|[\]\\]/g, "\\$&")
        )
        .join("")
      // a pattern that names a folder excludes everything under it
      return { include, regex: new RegExp(`^${source}(?:/.*)?$`) }
    })
  return (path: string): boolean => {
    let ignored = false
    for (const rule of rules) if (rule.regex.test(path)) ignored = !rule.include
    return ignored
  }
}

/** The Dockerfile's stages: the lines from each FROM to the next, continuation lines joined. */
const stages = (dockerfile: string): Array<string> =>
  dockerfile
    .replace(/\\\n/g, " ")
    .split("\n")
    .filter((line) => !line.trimStart().startsWith("#"))
    .join("\n")
    .split(/^(?=FROM )/m)
    .filter((stage) => stage.startsWith("FROM "))

describe(".dockerignore", () => {
  const ignored = ignoredBy(read(".dockerignore"))

  it("keeps every .env file out of the build context, but not .env.example", () => {
    for (const path of [".env", ".env.local", ".env.production", "apps/server/.env", "packages/http/.env.test"])
      expect(ignored(path), path).toBe(true)
    expect(ignored(".env.example")).toBe(false)
  })

  it("keeps node_modules and build output out, and lets in what the image builds from", () => {
    for (const path of [
      "node_modules/effect/package.json",
      "apps/server/node_modules/.bin/tsx",
      "apps/server/dist/main.js",
      "packages/http/dist/index.js",
      ".git/HEAD",
      "data/switchboard.sqlite"
    ])
      expect(ignored(path), path).toBe(true)
    for (const path of [
      "package.json",
      "pnpm-lock.yaml",
      "pnpm-workspace.yaml",
      ".npmrc",
      "apps/server/src/main.ts",
      "apps/server/scripts/build.mjs",
      "packages/domain/src/index.ts"
    ])
      expect(ignored(path), path).toBe(false)
  })
})

describe("Dockerfile", () => {
  const all = stages(read("Dockerfile"))
  const runtime = all.at(-1)!
  const build = all.slice(0, -1).join("\n")

  it("has a build stage and a runtime stage", () => {
    expect(all.length).toBeGreaterThanOrEqual(2)
    expect(build).toMatch(/COPY \. \./)
  })

  it("the runtime stage holds the bundle and production dependencies only, from pnpm deploy --prod", () => {
    const deploy = /pnpm (?:--filter @switchboard\/server )?deploy (?:[^\n&]*\s)?--prod\b[^\n&]*\s(\/\S+)/.exec(build)
    expect(deploy, "pnpm --filter @switchboard/server deploy --prod <folder> in the build stage").not.toBeNull()
    const folder = deploy![1]!
    const copies = [...runtime.matchAll(/^COPY (.*)$/gm)].map((m) => m[1]!)
    expect(copies.length).toBeGreaterThan(0)
    for (const copy of copies) expect(copy, "the runtime copies only the deployed folder").toMatch(new RegExp(`^--from=build ${folder} `))
    expect(runtime).not.toMatch(/pnpm install|npm install|--from=build \/app\b/)
    // the bundle is in the deployed package, and what it leaves external is a production dependency
    const pkg = JSON.parse(read("apps/server/package.json"))
    expect(pkg.files).toContain("dist")
    for (const name of nodeBundle.external.filter((n) => n !== "pg-native")) {
      expect(pkg.dependencies[name], `${name} in the dependencies of @switchboard/server`).toBeDefined()
    }
    // and the command runs that bundle
    expect(runtime).toMatch(/exec node \/app\/dist\/main\.js/)
    expect(build).toMatch(/node dist\/main\.js migrate/)
  })

  it("runs as a user other than root, with a health check", () => {
    const user = [...runtime.matchAll(/^USER (\S+)/gm)].at(-1)?.[1]
    expect(user).toBeDefined()
    expect(["root", "0", "0:0"]).not.toContain(user)
    expect(runtime).toMatch(/^HEALTHCHECK .*CMD .*\/healthz/m)
    expect(runtime).toMatch(/^ENTRYPOINT \["switchboard"\]/m)
  })
})

describe("compose.yaml", () => {
  const compose = read("compose.yaml")
  const example = read(".env.example")
  const SECRETS = ["POSTGRES_PASSWORD", "SWITCHBOARD_EMULATOR_APP_SECRET", "SWITCHBOARD_FLOW_SECRET", "OPERATOR_VERIFY_TOKEN"]

  it("gives every Switchboard process the settings of .env", () => {
    const anchor = /^x-switchboard: &switchboard\n((?: {2}.*\n)+)/m.exec(compose)?.[1] ?? ""
    expect(anchor).toMatch(/^ {2}env_file: \.env$/m)
    for (const service of ["emulator", "server", "worker"]) {
      const body = new RegExp(`^ {2}${service}:\\n((?: {4}.*\\n|\\n)+)`, "m").exec(compose)?.[1] ?? ""
      expect(body, service).toMatch(/^ {4}<<: \*switchboard$/m)
    }
    // every setting is one .env can hold (the README and --help list the same)
    for (const v of Environment.variables) expect(example, v.name).toMatch(new RegExp(`^#? ?${v.name}=`, "m"))
    expect(compose).toMatch(/^ {4}HOST: 0\.0\.0\.0$/m)
  })

  it("refuses to start while a required secret is unset, SWITCHBOARD_FLOW_SECRET included; no default secret", () => {
    for (const secret of SECRETS) {
      expect(compose, secret).toMatch(new RegExp(`\\$\\{${secret}:\\?[^}]+\\}`))
      expect(compose, secret).not.toMatch(new RegExp(`\\$\\{${secret}:?-`))
      // a copy of .env.example does not start with a published secret
      expect(example, secret).toMatch(new RegExp(`^#? ?${secret}=$`, "m"))
    }
    expect(`${compose}\n${example}`).not.toMatch(/change-me/)
    // every variable compose reads is a setting
    const known = new Set([...Environment.variables.map((v) => v.name), "POSTGRES_PASSWORD"])
    const used = [...compose.matchAll(/\$\{([A-Z0-9_]+)/g)].map((m) => m[1]!)
    expect(used.filter((name) => !known.has(name))).toEqual([])
  })
})
