/**
 * The template pages rendered straight to JSON text, by hand: what `JSON.stringify` of
 * `Schema.encode(TemplatePage)` writes (the keys in the schema's encoded order, the renamed
 * ones under their wire names, times as ISO text, components as they are stored), without the
 * encoded objects in between. The list and the one-template routes answer a page on every
 * request; `test/render.test.ts` proves the text equal to the schema's, byte for byte.
 */
import { type Pagination, type Template, Time } from "@switchboard/domain"

const text = JSON.stringify

/** One template as `Template.TemplateResource` encodes it. */
export const renderTemplate = (t: typeof Template.TemplateResource.Type): string =>
  `{"id":${text(t.id)},"name":${text(t.name)},"language":${text(t.language)},"category":${text(t.category)},"status":${text(t.status)},` +
  `"components":${text(t.components)},"rejected_reason":${text(t.rejectedReason)},"quality_score":${text(t.qualityScore)},` +
  `"created_at":${text(Time.toIso(t.createdAt))},"updated_at":${text(Time.toIso(t.updatedAt))}}`

/** A page of templates as `TemplatePage` encodes it. */
export const renderPage = (page: Pagination.Page<typeof Template.TemplateResource.Type>): string => {
  let out = '{"data":['
  const { data } = page
  for (let i = 0; i < data.length; i++) out += i === 0 ? renderTemplate(data[i]) : `,${renderTemplate(data[i])}`
  return `${out}],"next_cursor":${text(page.next_cursor)}}`
}
