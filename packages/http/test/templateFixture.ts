import type { Template } from "@switchboard/domain"

type Resource = typeof Template.TemplateResource.Type

/** The i-th template resource of a page: alternately approved and rejected, every third with a quality score. */
export const template = (i: number, over: Partial<Resource> = {}): Resource => ({
  id: `tpl_01M8ANTR748VXNK0613DQGSW${String(i).padStart(2, "0")}` as Template.TemplateId,
  name: `order_update_${i}`,
  language: "en_US",
  category: "UTILITY",
  status: i % 2 === 0 ? "APPROVED" : "REJECTED",
  components: [{ type: "BODY", text: "Hello {{1}}", example: { body_text: [["Ana"]] } }],
  rejectedReason: i % 2 === 0 ? null : "INVALID_FORMAT",
  qualityScore: i % 3 === 0 ? "GREEN" : null,
  createdAt: 1_790_000_000_000 + i,
  updatedAt: 1_790_000_100_000 + i,
  ...over
})
