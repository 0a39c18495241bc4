/** What the batch contracts share: labels that replace a copy's own ids, so two copies compare equal. */

/** Each side's store id labelled `a` or `b`, then what `more` labels of the side. */
export const sideLabels = <S extends { readonly store: { readonly id: string } }>(
  copy: { readonly a: S; readonly b: S },
  more: (name: string, side: S, labels: Map<string, string>) => void
): Map<string, string> => {
  const labels = new Map<string, string>()
  for (const [name, side] of [
    ["a", copy.a],
    ["b", copy.b]
  ] as const) {
    labels.set(side.store.id, name)
    more(name, side, labels)
  }
  return labels
}
