/**
 * What a campaign lane keeps about its sends (`campaigns/LaneMessages.ts`) is its own, and a
 * media re-upload another process made is found in the database (`campaigns/MediaResend.ts`):
 * - two lanes (two workers, or two servers in one process) share no replaced media id and no
 *   template part; one lane's parts are built once per campaign and rebuilt after a re-upload;
 * - sends refused at once for one media share one upload; a second lane (another process, over
 *   the same database) refused with the frozen id uses that copy instead of uploading again,
 *   while one refused past `REUPLOAD_SHARED_MS` uploads again; another store's media is unknown.
 */
import { describe, expect, it } from "@effect/vitest"
import {
  Campaign,
  CampaignLaneMessages,
  CampaignLanes,
  CampaignMediaResend,
  type CampaignRecipient,
  type CampaignRepo,
  type Errors,
  Media,
  MediaPorts,
  MessageOperator,
  type Store
} from "@switchboard/domain"
import { Effect, Layer, Option, Schema, TestClock } from "effect"

const STORE = "str_01JD0000000000000000000001" as Campaign.Campaign["storeId"]
const OTHER_STORE = "str_01JD0000000000000000000002" as Campaign.Campaign["storeId"]
const MEDIA = Schema.decodeSync(Media.MediaId.schema)("med_01JD0000000000000000000001")
const account: Store.OperatorAccount = { kind: "sandbox", wabaId: "w1", phoneNumberId: "p1", displayPhoneNumber: "+1555" }

const campaign = (storeId = STORE): Campaign.Campaign =>
  ({
    id: Schema.decodeSync(Campaign.CampaignId.schema)("cmp_01JD0000000000000000000001"),
    storeId,
    mode: "test",
    templateName: "spring",
    templateLanguage: "en_US",
    parameters: ["A"],
    headerParameters: [],
    buttonParameters: [],
    templateHeader: { type: "image", media_id: MEDIA, operator_media_id: "op-frozen" }
  }) as unknown as Campaign.Campaign

const recipient = (n: number): CampaignRepo.ClaimedRecipient => ({
  id: `rcp_${n}` as CampaignRecipient.RecipientId,
  seq: n,
  phone: `+1555123000${n}`,
  parameters: null
})

const headerId = (message: MessageOperator.OutboundMessage) => (message.type === "template" ? (message.template.header as any)?.id : undefined)

/** One database (the media row), the operator's uploads and the sends seen; a layer over them. */
const world = () => {
  let copy = { id: "op-frozen", uploadedAt: 0 }
  const uploads: Array<string> = []
  const sent: Array<string> = []
  const media = (): Media.Media => ({
    id: MEDIA,
    storeId: STORE,
    mimeType: "image/png",
    size: 10,
    sha256: "x",
    filename: null,
    operatorCopies: { [account.phoneNumberId]: copy },
    createdAt: 0
  })
  const layer = Layer.mergeAll(
    Layer.succeed(MediaPorts.MediaRepo, {
      insert: () => Effect.void,
      find: (storeId, id) => Effect.succeed(storeId === STORE && id === MEDIA ? Option.some(media()) : Option.none()),
      remove: () => Effect.succeed(false),
      setOperatorCopy: (_storeId, _id, _phone, c) =>
        Effect.sync(() => {
          copy = c
        })
    }),
    Layer.succeed(MediaPorts.MediaFiles, { keep: () => Effect.die("unused"), pathOf: (id) => `/media/${id}`, remove: () => Effect.void }),
    Layer.succeed(MediaPorts.MediaOperator, {
      uploadHandle: () => Effect.die("unused"),
      // an upload takes a while: the sends refused meanwhile wait for the same one
      uploadMedia: () =>
        Effect.zipRight(
          Effect.yieldNow(),
          Effect.sync(() => {
            uploads.push(`op-${uploads.length + 1}`)
            return uploads[uploads.length - 1]!
          })
        )
    }),
    Layer.succeed(MessageOperator.MessageOperator, {
      sendMessage: (_account, message) =>
        Effect.sync(() => {
          sent.push(headerId(message))
          return { messageId: `wamid.${sent.length}` }
        })
    })
  )
  return { layer, uploads, sent, copy: () => copy }
}

const resend = (messages: CampaignLaneMessages.LaneMessages, n: number, storeId = STORE) =>
  CampaignMediaResend.resendWithFreshMedia(messages, account, campaign(storeId), recipient(n), {})

describe("a campaign lane's messages", () => {
  it("two lanes share no replaced id; a lane builds a campaign's template part once, and again after a replacement", () => {
    const c = campaign()
    const a = new CampaignLaneMessages.LaneMessages()
    const b = new CampaignLaneMessages.LaneMessages()
    const first = a.outboundFor(c, recipient(1))
    expect(first).toEqual(CampaignLanes.outboundFor(c, recipient(1)))
    expect(headerId(first)).toBe("op-frozen")
    const templateOf = (m: MessageOperator.OutboundMessage) => (m.type === "template" ? m.template : undefined)
    // the campaign's part is one object for every recipient without parameters of their own
    expect(templateOf(a.outboundFor(c, recipient(2)))).toBe(templateOf(first))
    a.replace("op-frozen", "op-fresh")
    expect(headerId(a.outboundFor(c, recipient(3)))).toBe("op-fresh")
    expect(headerId(b.outboundFor(c, recipient(3)))).toBe("op-frozen")
    expect(headerId(CampaignLanes.outboundFor(c, recipient(3)))).toBe("op-frozen")
  })

  it.effect("sends refused at once share one upload; another lane over the same database uses it; past the shared window it uploads again", () =>
    Effect.gen(function* () {
      const w = world()
      yield* TestClock.setTime(1_000_000)
      const a = new CampaignLaneMessages.LaneMessages()
      yield* Effect.all([resend(a, 1), resend(a, 2), resend(a, 3)], { concurrency: "unbounded" }).pipe(Effect.provide(w.layer))
      expect(w.uploads).toEqual(["op-1"])
      expect(w.sent).toEqual(["op-1", "op-1", "op-1"])
      expect(w.copy()).toEqual({ id: "op-1", uploadedAt: 1_000_000 })
      expect(headerId(a.outboundFor(campaign(), recipient(4)))).toBe("op-1")

      // another process's lane, refused with the frozen id: the copy in the database serves, no upload
      const b = new CampaignLaneMessages.LaneMessages()
      yield* TestClock.adjust("10 seconds")
      yield* resend(b, 5).pipe(Effect.provide(w.layer))
      expect(w.uploads).toEqual(["op-1"])
      expect(w.sent.at(-1)).toBe("op-1")
      expect(headerId(b.outboundFor(campaign(), recipient(6)))).toBe("op-1")

      // refused again past the shared window: uploaded again (the copy it had is the one refused)
      yield* TestClock.adjust(`${CampaignMediaResend.REUPLOAD_SHARED_MS + 1} millis`)
      yield* resend(b, 7).pipe(Effect.provide(w.layer))
      expect(w.uploads).toEqual(["op-1", "op-2"])
      expect(w.sent.at(-1)).toBe("op-2")
      expect(headerId(b.outboundFor(campaign(), recipient(8)))).toBe("op-2")
      // the first lane keeps its own until it is refused
      expect(headerId(a.outboundFor(campaign(), recipient(9)))).toBe("op-1")

      // a campaign of another store naming this media: unknown there, nothing uploaded or sent
      const refused = yield* Effect.flip(resend(new CampaignLaneMessages.LaneMessages(), 10, OTHER_STORE).pipe(Effect.provide(w.layer)))
      expect((refused as Errors.ValidationFailed)._tag).toBe("ValidationFailed")
      expect(w.uploads).toEqual(["op-1", "op-2"])
      expect(w.sent.length).toBe(5)
    })
  )
})
