/**
 * Status reports of messages sent through `POST /chat/messages`, a batch at a time (the
 * inbox's): the batch's messages are looked up by wamid in one query per store, each
 * message's reports are folded in memory in the order received, and each message changes
 * in one conditional UPDATE from the status it was read in to where its reports lead. The
 * effect is the one of applying each report in turn (`onMessageStatus`): the same changes,
 * the same caller events in the same order. A message another batch moved meanwhile, and a
 * report matched only by our callback data, are applied one report at a time.
 */
import { Effect } from "effect"
import type * as WebhookEvent from "../operator/WebhookEvent.js"
import type { Routed } from "../shared/Module.js"
import type { Tenant } from "../shared/Tenant.js"
import type { Store } from "../stores/Store.js"
import { onMessageStatus, statusChanged } from "./InboundEvents.js"
import * as Message from "./Message.js"
import { MessageRepo, MessageStatusRepo } from "./MessagingRepo.js"

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
    for (const { store, wamids } of stores.values()) {
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
    // rows locked in one order (their ids), whatever the batch's: concurrent batches do not deadlock
    for (const run of [...runs.values()].sort((a, b) => (a.message.id < b.message.id ? -1 : 1))) yield* advance(run)
  })

/** Folds one message's reports and writes where they lead, from the status it was read in. */
const advance = ({ store, message, events }: Run) =>
  Effect.gen(function* () {
    const steps: Array<{ readonly to: Message.Status; readonly event: WebhookEvent.MessageStatus }> = []
    let status = message.status
    for (const event of events) {
      const to = Message.advance(status, event.status)
      if (to === undefined) continue
      steps.push({ to, event })
      status = to
    }
    if (steps.length === 0) return
    const last = steps[steps.length - 1]
    const tenant: Tenant = { storeId: message.storeId, mode: message.mode }
    const changed = yield* (yield* MessageRepo).advanceStatus(tenant, message.id, {
      to: last.to,
      from: [message.status],
      operatorMessageId: last.event.messageId,
      error: last.event.error ?? undefined
    })
    if (!changed) return yield* Effect.forEach(events, (event) => onMessageStatus(store, event), { discard: true })
    for (const step of steps) yield* statusChanged(tenant, message, step.to, step.event)
  })
