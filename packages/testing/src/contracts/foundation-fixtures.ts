/** Fixtures of the foundation contract: stores, templates and jobs written through the ports. */
import { Id, JobQueue, Store, StoreRepo, Template, TemplateRepo, type Tenant, Time } from "@switchboard/domain"
import { Data, Effect } from "effect"

// ---------------------------------------------------------------------------------------
// fixtures

export const liveAccount = (): Store.OperatorAccount => ({ ...Store.newSandboxAccount(), kind: "live" })

/** What every row of a tenant starts with: a new id, the tenant's store and mode, created and updated now (the Clock's). */
export const newRow = <I>(tenant: { readonly storeId: Tenant.StoreId; readonly mode: Tenant.Mode }, id: Effect.Effect<I>) =>
  Effect.gen(function* () {
    const now = yield* Time.now
    return { id: yield* id, storeId: tenant.storeId, mode: tenant.mode, createdAt: now, updatedAt: now }
  })

/** A new store (with its keys) written through the repository. */
export const createStore = (options: { readonly live?: boolean } = {}) =>
  Effect.gen(function* () {
    const made = yield* Store.make({ name: `Shop ${Id.randomToken(6)}`, live: options.live ? liveAccount() : null })
    yield* (yield* StoreRepo.StoreRepo).create(made.store, made.keys)
    return made
  })

export const body = (text: string): ReadonlyArray<Template.Component> => [{ type: "BODY", text: `${text} {{1}}`, example: { body_text: [["Ann"]] } }]

/** The store's tenant in `mode` (live by default). */
export const tenantOf = (storeId: Tenant.StoreId, mode: Tenant.Mode = "live"): Tenant.Tenant => ({ storeId, mode })

export const template = (storeId: Tenant.StoreId, name: string, overrides: Partial<Omit<Template.Template, "storeId" | "name">> = {}) =>
  Effect.gen(function* () {
    const now = yield* Time.now
    const template: Template.Template = {
      id: yield* Template.TemplateId.generate,
      storeId,
      name,
      language: "en_US",
      category: "UTILITY",
      status: "PENDING",
      components: body(`Hello from ${name}`),
      rejectedReason: null,
      qualityScore: null,
      operatorId: `op_${Id.randomToken(8)}`,
      createdAt: now,
      updatedAt: now,
      ...overrides
    }
    return template
  })

/** Stores the template in its store (through the live tenant: templates belong to the store, not a mode). */
export const insertTemplate = (t: Template.Template) => Effect.flatMap(TemplateRepo.TemplateRepo, (repo) => repo.insert(tenantOf(t.storeId), t))

export const state = (name: string, overrides: Partial<TemplateRepo.TemplateState> = {}): TemplateRepo.TemplateState => ({
  operatorId: `op_${name}`,
  name,
  language: "en_US",
  category: "UTILITY",
  status: "APPROVED",
  components: body(`Hello from ${name}`),
  rejectedReason: null,
  ...overrides
})

export const uniqueKind = (label: string) => `test.${label}.${Id.randomToken(10)}`

export const claimOf = (kind: string, options: { readonly limit?: number; readonly leaseMs?: number; readonly workerId?: string } = {}) =>
  Effect.flatMap(JobQueue.JobQueue, (queue) =>
    queue.claim({
      workerId: options.workerId ?? "worker-1",
      kinds: [kind],
      limit: options.limit ?? 10,
      leaseMs: options.leaseMs ?? 30_000
    })
  )

export const leaseOf = (job: JobQueue.Job): JobQueue.Lease => ({ id: job.id, attempt: job.attempt })

export const nowMillis = Effect.clockWith((clock) => clock.currentTimeMillis)

export class Boom extends Data.TaggedError("Boom") {}
export const boom = () => new Boom()
