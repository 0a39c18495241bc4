/**
 * Status reports of messages sent through `POST /chat/messages`, a batch at a time (the
 * inbox's): the batch's messages are looked up by wamid (and locked) in one query per store,
 * each message's reports are folded in memory in the order received, and all the messages
 * change in one statement per store, each from the status it was read in to where its
 * reports lead (`advanceStatuses`); the caller events go out as one batch
 * (`Webhooks.batched`). The effect is the one of applying each report in turn
 * (`onMessageStatus`): the same changes, the same caller events in the same order. A
 * message another batch moved meanwhile, and a report matched only by our callback data,
 * are applied one report at a time.
 */
import { Effect } from "effect"
import type * as WebhookEvent from "../operator/WebhookEvent.js"
import type { Routed } from "../shared/Module.js"
import type { Tenant } from "../shared/Tenant.js"
import type { Store } from "../stores/Store.js"
import { onMessageStatus, statusChanged } from "./InboundEvents.js"
import * as Message from "./Message.js"
import * as Webhooks from "../webhooks/Webhooks.js"
import type * as MessagingRepo from "./MessagingRepo.js"
import { MessageStatusRepo } from "./MessagingRepo.js"

interface Run {
  readonly store: Store
  readonly message: Message.Message
  readonly events: Array<WebhookEvent.MessageStatus>
}

export const onMessageStatuses = (items: ReadonlyArray<Routed<WebhookEvent.MessageStatus>>) =>
  Effect.gen(function* () {
    const repo = yield* MessageStatusRepo
    const byWamid = new Map<string, Message.Message>()
    const stores = new Map<string, { readonly store: Store; readonly wamids: Set<string> }>()
    for (const { store, event } of items) {
      const entry = stores.get(store.id) ?? { store, wamids: new Set<string>() }
      entry.wamids.add(event.messageId)
      stores.set(store.id, entry)
    }
    // stores in the order of their ids, each one's messages in theirs: one lock order for every batch
    for (const { store, wamids } of [...stores.values()].sort((a, b) => (a.store.id < b.store.id ? -1 : 1))) {
      for (const message of yield* repo.findByOperatorIds(store.id, [...wamids])) byWamid.set(`${store.id} ${message.operatorMessageId}`, message)
    }
    const runs = new Map<string, Run>()
    for (const { store, event } of items) {
      const message = byWamid.get(`${store.id} ${event.messageId}`)
      if (message === undefined) {
        yield* onMessageStatus(store, event)
        continue
      }
      const run = runs.get(message.id)
      if (run === undefined) runs.set(message.id, { store, message, events: [event] })
      else run.events.push(event)
    }
    const planned = [...runs.values()].sort((a, b) => (a.message.id < b.message.id ? -1 : 1)).map(plan)
    const byStore = new Map<Store["id"], Array<MessagingRepo.StatusChange>>()
    for (const { change, run } of planned) {
      if (change === undefined) continue
      const changes = byStore.get(run.store.id) ?? []
      changes.push(change)
      byStore.set(run.store.id, changes)
    }
    const changed = new Set<string>()
    for (const [storeId, changes] of byStore) for (const id of yield* repo.advanceStatuses(storeId, changes)) changed.add(id)
    for (const { run, change, steps } of planned) {
      if (change === undefined) continue
      const tenant: Tenant = { storeId: run.message.storeId, mode: run.message.mode }
      if (changed.has(run.message.id)) for (const step of steps) yield* statusChanged(tenant, run.message, step.to, step.event)
      else yield* Effect.forEach(run.events, (event) => onMessageStatus(run.store, event), { discard: true })
    }
  }).pipe(Webhooks.batched)

/** Folds one message's reports: the steps they take from the status it was read in, and the change that leads to the last. */
const plan = (run: Run) => {
  const { message, events } = run
  const steps: Array<{ readonly to: Message.Status; readonly event: WebhookEvent.MessageStatus }> = []
  let status = message.status
  for (const event of events) {
    const to = Message.advance(status, event.status)
    if (to === undefined) continue
    steps.push({ to, event })
    status = to
  }
  const last = steps.at(-1)
  const change: MessagingRepo.StatusChange | undefined =
    last === undefined
      ? undefined
      : { id: message.id, from: message.status, to: last.to, operatorMessageId: last.event.messageId, error: last.event.error ?? undefined }
  return { run, steps, change }
}
