/**
 * The import guard: reads every import of every workspace package (static `import … from`,
 * `export … from`, `import type`, dynamic `import("…")`, `require("…")`, as TypeScript's own
 * pre-processor finds them) and answers the ones that break a rule:
 *
 * 1. DESIGN.md's arrows, for a package's sources (tests may assemble anything they declare):
 *    `domain` imports only `effect` and itself; an adapter never imports another adapter;
 *    only `apps/server` assembles; `operator-emulator` imports nothing of ours. The arrows are
 *    the table `DESIGN_RULES`; a package missing from it is itself a violation, so a new
 *    package states its arrows before it lands.
 * 2. Declared dependencies: every package imported must be declared by the importing
 *    package's package.json: `dependencies` or `peerDependencies` for sources (what ships),
 *    `devDependencies` too for tests, benchmarks and tooling. `node:` builtins and relative
 *    imports need nothing.
 * 3. No deep imports across our packages: `@switchboard/x/sub` only where `./sub` is an
 *    explicit key of x's `exports` (the `./*` pattern exists for declaration files to name
 *    types, not for imports).
 *
 * Imports whose specifier is computed at run time cannot be read and are not checked.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { builtinModules } from "node:module"
import { join, relative, sep } from "node:path"
import ts from "typescript"

/** What one of our packages may import from its sources. */
export interface PackageRule {
  /** Our packages (besides itself) its sources may import, or "any" for a composition root. */
  readonly ours: ReadonlyArray<string> | "any"
  /** When present, the only other packages its sources may import. */
  readonly only?: ReadonlyArray<string>
  /** The arrow as DESIGN.md draws it, printed with a violation. */
  readonly why: string
}

const domain = "@switchboard/domain"
const storeSql = "@switchboard/store-sql"

/** DESIGN.md's arrows ("Packages and the one dependency rule"), one line per package. */
export const DESIGN_RULES: Readonly<Record<string, PackageRule>> = {
  [domain]: { ours: [], only: ["effect"], why: "domain ─► effect only (pure: no I/O, no SQL, no HTTP)" },
  "@switchboard/http": { ours: [domain], why: "http ─► domain" },
  "@switchboard/worker": { ours: [domain], why: "worker ─► domain" },
  [storeSql]: { ours: [domain], why: "store-sql ─► domain" },
  "@switchboard/store-sqlite": { ours: [storeSql, domain], why: "store-sqlite ─► store-sql ─► domain" },
  "@switchboard/store-postgres": { ours: [storeSql, domain], why: "store-postgres ─► store-sql ─► domain" },
  "@switchboard/operator-client": { ours: [domain], why: "operator-client ─► domain" },
  "@switchboard/outbound": { ours: [domain], why: "outbound (calls to URLs the caller gave us) ─► domain" },
  "@switchboard/operator-emulator": { ours: [], why: "operator-emulator ─► nothing of ours: it plays the outside world" },
  "@switchboard/server": { ours: "any", why: "apps/server is the composition root" },
  "@switchboard/console": { ours: [], only: ["preact"], why: "console ─► nothing of ours: a browser app that calls only the HTTP API" },
  "@switchboard/testing": { ours: "any", why: "test support: tests assemble layers" },
  switchboard: { ours: "any", why: "the workspace root: benchmarks, tests and tooling" }
}

/** One import that breaks a rule, printed as `file:line imports "x": reason`. */
export interface Violation {
  readonly file: string
  readonly line: number
  readonly specifier: string
  readonly reason: string
}

export const formatViolation = (v: Violation): string => `${v.file}:${v.line} imports "${v.specifier}": ${v.reason}`

interface Manifest {
  readonly name: string
  readonly dependencies?: Record<string, string>
  readonly devDependencies?: Record<string, string>
  readonly peerDependencies?: Record<string, string>
  readonly optionalDependencies?: Record<string, string>
  readonly exports?: unknown
}

interface Package {
  readonly dir: string
  readonly manifest: Manifest
  /** Folders of the package not to read (other packages, for the root). */
  readonly skip: ReadonlyArray<string>
}

const SOURCE = /\.(?:[cm]?[jt]s|tsx)$/
const IGNORED_DIRS = new Set(["node_modules", "dist", ".git", ".turbo", "coverage", "data"])

const readManifest = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))

/** The workspace root and its packages (every folder with a package.json under `packages/` and `apps/`). */
export const workspacePackages = (root: string): Array<Package> => {
  const groups = ["packages", "apps"]
  const members = groups.flatMap((group) =>
    existsSync(join(root, group))
      ? readdirSync(join(root, group))
          .map((name) => join(root, group, name))
          .filter((dir) => existsSync(join(dir, "package.json")))
      : []
  )
  return [
    // scripts/pack-check/ holds the sources of the scratch project that pack-check.mjs creates
    // outside the workspace (its package.json is written there): not a source of the root
    { dir: root, manifest: readManifest(root), skip: [...groups.map((g) => join(root, g)), join(root, "scripts", "pack-check")] },
    ...members.map((dir) => ({ dir, manifest: readManifest(dir), skip: [] }))
  ]
}

const sourceFiles = (dir: string, skip: ReadonlyArray<string>): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (IGNORED_DIRS.has(name) || name.startsWith(".") || skip.includes(path)) return []
    if (statSync(path).isDirectory()) return sourceFiles(path, skip)
    return SOURCE.test(name) ? [path] : []
  })

/** Tests, test support, benchmarks and tooling: they may use devDependencies and assemble anything. */
const isDevFile = (pkg: Package, file: string): boolean => {
  if (pkg.skip.length > 0) return true // the root holds only tooling, tests and benchmarks
  const path = relative(pkg.dir, file).split(sep)
  return path[0] !== "src" && path[0] !== "bin" ? true : /\.test\.[cm]?[jt]sx?$/.test(file)
}

/** `@scope/name/sub` -> `@scope/name`, `name/sub` -> `name`. */
export const packageOf = (specifier: string): string => {
  const parts = specifier.split("/")
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]
}

const isBuiltin = (specifier: string): boolean => specifier.startsWith("node:") || builtinModules.includes(packageOf(specifier))

/** The imports of one file, with their 1-based lines. */
export const importsOf = (text: string): Array<{ readonly specifier: string; readonly line: number }> => {
  const lineStarts = [0]
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lineStarts.push(i + 1)
  const lineOf = (pos: number) => {
    let line = 0
    while (line + 1 < lineStarts.length && lineStarts[line + 1] <= pos) line++
    return line + 1
  }
  return ts.preProcessFile(text, true, true).importedFiles.map((ref) => ({ specifier: ref.fileName, line: lineOf(ref.pos) }))
}

/** The explicit (non-pattern) subpaths of a package's `exports`. */
const explicitSubpaths = (manifest: Manifest): Set<string> => {
  const exports = manifest.exports
  if (typeof exports !== "object" || exports === null) return new Set(["."])
  const keys = Object.keys(exports)
  return new Set(keys.some((k) => k.startsWith(".")) ? keys.filter((k) => !k.includes("*")) : ["."])
}

/** Every violation in the workspace at `root`, sorted by file and line. */
export const checkImports = (root: string, rules: Readonly<Record<string, PackageRule>> = DESIGN_RULES): Array<Violation> => {
  const packages = workspacePackages(root)
  const byName = new Map(packages.map((p) => [p.manifest.name, p]))
  const ours = (name: string) => byName.has(name)
  const violations: Array<Violation> = []

  for (const pkg of packages) {
    const { manifest } = pkg
    const rule = rules[manifest.name]
    const at = (file: string) => relative(root, file).split(sep).join("/")
    if (rule === undefined) {
      violations.push({
        file: at(join(pkg.dir, "package.json")),
        line: 1,
        specifier: manifest.name,
        reason: "a package without a rule in the import guard (test/importGuard.ts DESIGN_RULES): state its arrows as DESIGN.md draws them"
      })
      continue
    }
    const shipped = new Set([
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}),
      ...Object.keys(manifest.optionalDependencies ?? {})
    ])
    const dev = new Set(Object.keys(manifest.devDependencies ?? {}))

    for (const file of sourceFiles(pkg.dir, pkg.skip)) {
      const devFile = isDevFile(pkg, file)
      for (const { specifier, line } of importsOf(readFileSync(file, "utf8"))) {
        if (specifier.startsWith(".") || specifier.startsWith("/") || specifier.startsWith("#")) continue
        const report = (reason: string) => violations.push({ file: at(file), line, specifier, reason })
        const name = packageOf(specifier)
        if (isBuiltin(specifier)) {
          if (!devFile && rule.only !== undefined) report(`${rule.why}; no Node.js builtins`)
          continue
        }
        if (name === manifest.name) continue

        // 1. the arrows, for what ships
        if (!devFile) {
          if (ours(name)) {
            if (rule.ours !== "any" && !rule.ours.includes(name)) report(`${rule.why}; it may not import ${name}`)
          } else if (rule.only !== undefined && !rule.only.includes(name)) {
            report(`${rule.why}; it may import only ${rule.only.join(", ")} and itself`)
          }
        }

        // 2. declared where it must be
        if (devFile ? !shipped.has(name) && !dev.has(name) : !shipped.has(name)) {
          report(
            !devFile && dev.has(name)
              ? `${name} is declared only in devDependencies of ${manifest.name}, but sources ship: declare it in dependencies`
              : `${name} is not declared in ${at(join(pkg.dir, "package.json"))}`
          )
        }

        // 3. through the package's exports
        const target = byName.get(name)
        if (target !== undefined && specifier !== name) {
          const subpath = `.${specifier.slice(name.length)}`
          if (!explicitSubpaths(target.manifest).has(subpath)) {
            report(`a deep import into ${name}: import from "${name}" (or a subpath its exports name)`)
          }
        }
      }
    }
  }
  return violations.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line)
}

/**
 * The import loops between the source files of one package (`src/`, relative imports, type
 * ones included), each as `package: a.ts ─ b.ts ─ …` (the files of the loop, sorted). A loop
 * through a shared list (`Modules.ts`, `Repositories.ts`, `StorageContracts.ts`) means a
 * file the list names imports something the list's file declares: that belongs in a file of
 * its own.
 */
export const importCycles = (root: string): Array<string> =>
  workspacePackages(root)
    .flatMap((pkg) => (pkg.skip.length > 0 || !existsSync(join(pkg.dir, "src")) ? [] : loopsOf(root, pkg.dir)))
    .sort()

/** The loops between the files under `dir/src` (Tarjan's strongly connected components of more than one file). */
const loopsOf = (root: string, dir: string): Array<string> => {
  const src = join(dir, "src")
  const files = sourceFiles(src, [])
  const known = new Set(files)
  const target = (from: string, specifier: string): Array<string> => {
    const base = join(from, "..", specifier).replace(/\.[cm]?js$/, "")
    return [`${base}.ts`, `${base}.tsx`, join(base, "index.ts")].filter((f) => known.has(f)).slice(0, 1)
  }
  const edges = new Map(
    files.map((file) => [
      file,
      importsOf(readFileSync(file, "utf8")).flatMap(({ specifier }) => (specifier.startsWith(".") ? target(file, specifier) : []))
    ])
  )
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const loops: Array<string> = []
  const visit = (file: string): void => {
    index.set(file, next)
    low.set(file, next++)
    stack.push(file)
    for (const to of edges.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to)
        low.set(file, Math.min(low.get(file)!, low.get(to)!))
      } else if (stack.includes(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!))
    }
    if (low.get(file) !== index.get(file)) return
    const component: Array<string> = []
    let popped: string
    do {
      popped = stack.pop()!
      component.push(popped)
    } while (popped !== file)
    if (component.length > 1 || (edges.get(file) ?? []).includes(file)) {
      const names = component.map((f) => relative(src, f).split(sep).join("/")).sort()
      loops.push(`${relative(root, dir).split(sep).join("/")}: ${names.join(" ─ ")}`)
    }
  }
  for (const file of files) if (!index.has(file)) visit(file)
  return loops
}
