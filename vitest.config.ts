import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"

const conditions = ["@switchboard/source"]

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: conditions } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // most test files wait on servers, workers and the emulator rather than compute: two files at
    // once on a two-core machine halve the run (vitest's default there is one, cores - 1)
    // and a fork runs its files one after another in one module graph (no isolation): each file
    // imported effect and every package afresh, one to several seconds a file, a fifth of the run.
    // The tests hold no state in modules: every file starts its own servers and databases
    poolOptions: { forks: { maxForks: Math.max(2, availableParallelism()), isolate: false } },
    globalSetup: ["./test/globalSetup.ts"]
  }
})
