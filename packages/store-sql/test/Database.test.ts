import { describe, expect, it } from "vitest"
import { isUniqueViolation } from "../src/Database.js"
import { migrations } from "../src/Migrations.js"

describe("isUniqueViolation", () => {
  it("recognises the drivers' unique and primary key violations, and nothing else", () => {
    expect(isUniqueViolation(Object.assign(new Error("x"), { code: "SQLITE_CONSTRAINT_UNIQUE" }))).toBe(true)
    expect(isUniqueViolation(Object.assign(new Error("x"), { code: "SQLITE_CONSTRAINT_PRIMARYKEY" }))).toBe(true)
    expect(isUniqueViolation(Object.assign(new Error("x"), { code: "23505" }))).toBe(true)
    expect(isUniqueViolation(Object.assign(new Error("x"), { code: "SQLITE_CONSTRAINT_FOREIGNKEY" }))).toBe(false)
    expect(isUniqueViolation(Object.assign(new Error("x"), { code: "23503" }))).toBe(false)
    expect(isUniqueViolation(new Error("UNIQUE constraint failed"))).toBe(false)
    expect(isUniqueViolation(undefined)).toBe(false)
  })
})

describe("migrations", () => {
  it("are named so that Kysely's alphabetical order is the order they were written in", () => {
    const names = Object.keys(migrations)
    expect(names[0]).toBe("0001_foundation")
    expect(names.every((n) => /^\d{4}_[a-z0-9_]+$/.test(n))).toBe(true)
    expect([...names].sort()).toEqual(names)
  })
})
