#!/usr/bin/env node
/**
 * Pack-and-install check (`pnpm pack-check`): what a team that embeds Switchboard gets from
 * the registry, checked before anything is published.
 *
 * 1. Builds every package (`pnpm build`; skip with `--no-build` when CI has just built).
 * 2. Packs every public workspace package with `pnpm pack` into a temporary folder and checks
 *    each tarball: LICENSE, package.json without `workspace:` ranges, `exports` targets that
 *    exist in the tarball, declarations beside the JavaScript, no test files.
 * 3. Creates a scratch project under the OS temporary folder (never inside the workspace),
 *    installs the tarballs there with pnpm from the local store (`--offline`; falls back to
 *    `--prefer-offline` when the store lacks something), type-checks and compiles
 *    `scripts/pack-check/embed.ts` against the installed declarations, and runs it with
 *    node: it validates a template with `@switchboard/domain` and serves requests through
 *    the web-standard handler of `@switchboard/http`.
 *
 * Exits non-zero on the first failure. `--keep` keeps the temporary folder for inspection
 * (it is kept, and its path printed, when a step fails).
 */
import { execFileSync, spawnSync } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, isAbsolute, join, relative, resolve } from "node:path"
import { builtinModules, createRequire } from "node:module"
import { fileURLToPath } from "node:url"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const args = new Set(process.argv.slice(2))
const build = !args.has("--no-build")
const keep = args.has("--keep")
const strictTypes = args.has("--strict-types")
const ts = createRequire(import.meta.url)("typescript")

const readJson = (path) => JSON.parse(readFileSync(path, "utf8"))
const rootManifest = readJson(join(root, "package.json"))

class CheckFailed extends Error {}

/**
 * Gives the scratch project's better-sqlite3 its native module: the workspace's compiled one
 * when the versions match (the same source, compiled for this node), else a rebuild there.
 */
const reuseNativeSqlite = (project) => {
  const store = join(project, "node_modules/@switchboard/store-sqlite")
  const scratch = dirname(createRequire(join(realpathSync(store), "package.json")).resolve("better-sqlite3/package.json"))
  const workspace = dirname(createRequire(join(root, "packages/store-sqlite/package.json")).resolve("better-sqlite3/package.json"))
  const binary = "build/Release/better_sqlite3.node"
  if (readJson(join(scratch, "package.json")).version === readJson(join(workspace, "package.json")).version && existsSync(join(workspace, binary))) {
    mkdirSync(join(scratch, "build/Release"), { recursive: true })
    copyFileSync(join(workspace, binary), join(scratch, binary))
    console.log(`ok   better-sqlite3's native module taken from the workspace's install of the same version`)
  } else run("pnpm", ["rebuild", "better-sqlite3"], { cwd: project })
}
const fail = (message) => {
  throw new CheckFailed(message)
}

/** Runs a command with inherited output; a non-zero exit fails the check. */
const run = (command, commandArgs, options = {}) => {
  console.log(`$ ${command} ${commandArgs.join(" ")}${options.cwd ? `   (in ${options.cwd})` : ""}`)
  const result = spawnSync(command, commandArgs, { stdio: "inherit", ...options })
  if (result.status !== 0) fail(`${command} ${commandArgs.join(" ")} exited with ${result.status ?? result.signal}`)
}

/** The workspace's packages (folders of pnpm-workspace.yaml's `packages/*` and `apps/*`). */
const workspacePackages = () =>
  ["packages", "apps"].flatMap((group) =>
    readdirSync(join(root, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(root, group, entry.name, "package.json")))
      .map((entry) => {
        const dir = join(root, group, entry.name)
        return { dir, manifest: readJson(join(dir, "package.json")) }
      })
  )

const tarballName = (manifest) => `${manifest.name.replace(/^@/, "").replace("/", "-")}-${manifest.version}.tgz`

/** Every file target named by `exports` (patterns checked on their `index` instance). */
const exportTargets = (exports) => {
  const targets = []
  const walk = (value) => {
    if (typeof value === "string") targets.push(value)
    else if (value && typeof value === "object") for (const inner of Object.values(value)) walk(inner)
  }
  walk(exports)
  return targets.map((t) => t.replace("*", "index"))
}

/** Checks one tarball's contents and packed manifest; answers the packed manifest. */
const checkTarball = (tarball, source) => {
  const files = new Set(
    execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" })
      .split("\n")
      .filter(Boolean)
      .map((f) => f.replace(/^package\//, ""))
  )
  const packed = JSON.parse(execFileSync("tar", ["-xzOf", tarball, "package/package.json"], { encoding: "utf8" }))
  const problems = []
  if (!files.has("LICENSE")) problems.push("no LICENSE file")
  if (packed.private === true) problems.push("is private")
  if (packed.license !== rootManifest.license && packed.license !== "MIT") problems.push(`license ${packed.license}`)
  if (!packed.description) problems.push("no description")
  for (const field of ["dependencies", "peerDependencies", "optionalDependencies"]) {
    for (const [name, range] of Object.entries(packed[field] ?? {})) {
      if (String(range).startsWith("workspace:")) problems.push(`${field}.${name} is still ${range}`)
    }
  }
  const main = packed.exports?.["."]
  if (!main || typeof main !== "object") problems.push('no conditional exports["."]')
  else {
    if (!String(main.types ?? "").startsWith("./dist/")) problems.push('exports["."].types does not point into dist')
    if (!String(main.default ?? "").startsWith("./dist/")) problems.push('exports["."].default does not point into dist')
    if (main["@switchboard/source"] === undefined) problems.push('exports["."] lost the @switchboard/source condition')
  }
  for (const target of exportTargets(packed.exports)) {
    if (!files.has(target.replace(/^\.\//, ""))) problems.push(`exports target ${target} is not in the tarball`)
  }
  for (const file of files) {
    if (file.endsWith(".js") && file.startsWith("dist/") && !files.has(file.replace(/\.js$/, ".d.ts"))) {
      problems.push(`${file} has no declaration beside it`)
    }
    if (/(^|\/)test\/|\.test\.[cm]?[jt]s$/.test(file)) problems.push(`test file ${file} is packed`)
  }
  if (problems.length > 0) fail(`${source.manifest.name}: ${problems.join("; ")}`)
  console.log(`ok   ${packed.name}@${packed.version}: ${files.size} files`)
  return packed
}

const filesUnder = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)]))

/**
 * Every package that an installed package's declarations import resolves, from where it is
 * installed, to declarations: a dependency whose types come from `@types/…` must list that
 * package in `dependencies`, or a consumer's types silently turn into `any` (or fail
 * without `skipLibCheck`).
 */
const checkDeclarationImports = (project, names) => {
  const options = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022 }
  const problems = []
  let checked = 0
  for (const name of names) {
    const dir = realpathSync(join(project, "node_modules", name))
    for (const file of filesUnder(join(dir, "dist")).filter((f) => f.endsWith(".d.ts"))) {
      const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true)
      for (const { fileName: specifier } of importedFiles) {
        if (specifier.startsWith(".") || specifier.startsWith("node:") || builtinModules.includes(specifier)) continue
        checked++
        const { resolvedModule } = ts.resolveModuleName(specifier, file, options, ts.sys, undefined, undefined, ts.ModuleKind.ESNext)
        const where = `${name}/${relative(dir, file)}`
        if (resolvedModule === undefined) problems.push(`${where} imports ${specifier}, which does not resolve`)
        else if (!/\.d\.[cm]?ts$/.test(resolvedModule.resolvedFileName)) {
          problems.push(`${where} imports ${specifier}, which has no declarations (add its @types package to ${name}'s dependencies)`)
        }
      }
    }
  }
  if (problems.length > 0) fail(`declarations that do not resolve for a consumer:\n  ${[...new Set(problems)].join("\n  ")}`)
  console.log(`ok   ${checked} package imports of the installed declarations resolve to declarations`)
}

const temp = mkdtempSync(join(realpathSync(tmpdir()), "switchboard-pack-check-"))
const rel = relative(root, temp)
if (rel === "" || (!rel.startsWith("..") && !isAbsolute(rel))) {
  console.error(`the scratch folder ${temp} is inside the workspace; set TMPDIR outside ${root}`)
  process.exit(1)
}

let ok = false
try {
  if (build) run("pnpm", ["build"], { cwd: root })

  // 2. Pack every public package.
  const tarballs = join(temp, "tarballs")
  mkdirSync(tarballs)
  const publics = workspacePackages().filter((p) => p.manifest.private !== true)
  if (publics.length === 0) fail("no public package found")
  const packed = new Map()
  for (const pkg of publics) {
    run("pnpm", ["pack", "--pack-destination", tarballs], { cwd: pkg.dir, stdio: ["ignore", "ignore", "inherit"] })
    const tarball = join(tarballs, tarballName(pkg.manifest))
    if (!existsSync(tarball)) fail(`pnpm pack did not write ${tarball}`)
    packed.set(pkg.manifest.name, { tarball, manifest: checkTarball(tarball, pkg) })
  }

  // 3. A scratch project that installs the tarballs, as a consumer would.
  const project = join(temp, "project")
  mkdirSync(project)
  const http = readJson(join(root, "packages/http/package.json"))
  const fileOf = (name) => `file:${packed.get(name).tarball}`
  const ours = Object.fromEntries([...packed.keys()].map((name) => [name, fileOf(name)]))
  writeFileSync(
    join(project, "package.json"),
    `${JSON.stringify(
      {
        name: "switchboard-embed-check",
        private: true,
        type: "module",
        dependencies: {
          ...ours,
          effect: http.dependencies.effect,
          "@effect/platform": http.dependencies["@effect/platform"]
        },
        devDependencies: { "@types/node": rootManifest.devDependencies["@types/node"] },
        // the tarballs depend on each other by version (0.1.0): point those at the tarballs too
        // better-sqlite3's native module is not compiled again here (a minute and a half): it is
        // taken from the workspace's install of the same version below, or rebuilt when that differs
        pnpm: { overrides: ours, onlyBuiltDependencies: [] }
      },
      null,
      2
    )}\n`
  )
  writeFileSync(
    join(project, "tsconfig.json"),
    `${JSON.stringify(
      {
        compilerOptions: {
          target: "ES2022",
          // @effect/platform's declarations name DOM types (Storage, Transferable)
          lib: strictTypes ? ["ES2022", "DOM"] : ["ES2022"],
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          // what embedding teams run; --strict-types checks every declaration file as well
          skipLibCheck: !strictTypes,
          types: ["node"],
          outDir: "out",
          rootDir: "."
        },
        files: ["embed.ts"]
      },
      null,
      2
    )}\n`
  )
  copyFileSync(join(root, "scripts/pack-check/embed.ts"), join(project, "embed.ts"))

  const install = ["install", "--no-frozen-lockfile", "--config.confirmModulesPurge=false"]
  const offline = spawnSync("pnpm", [...install, "--offline"], { cwd: project, stdio: "inherit" })
  if (offline.status !== 0) {
    console.log("offline install failed (the store lacks something); retrying with --prefer-offline")
    run("pnpm", [...install, "--prefer-offline"], { cwd: project })
  }
  reuseNativeSqlite(project)
  for (const name of packed.keys()) {
    const installed = join(project, "node_modules", name, "package.json")
    if (!existsSync(installed)) fail(`${name} is not installed in the scratch project`)
    if (realpathSync(installed).startsWith(`${root}/`)) fail(`${name} resolves into the workspace, not the tarball`)
  }

  checkDeclarationImports(project, [...packed.keys()])

  // tsc of the workspace: the scratch project needs no TypeScript of its own.
  const tsc = join(root, "node_modules/typescript/bin/tsc")
  run(process.execPath, [tsc, "-p", join(project, "tsconfig.json")], { cwd: project })
  run(process.execPath, [join(project, "out/embed.js")], { cwd: project })

  console.log(`pack-check passed: ${packed.size} packages packed, installed outside the workspace and used`)
  ok = true
} catch (error) {
  console.error(error instanceof CheckFailed ? `pack-check failed: ${error.message}` : error)
  process.exitCode = 1
} finally {
  if (ok && !keep) rmSync(temp, { recursive: true, force: true })
  else console.log(`scratch kept in ${temp}`)
}
