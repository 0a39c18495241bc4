/** Orders, and for the one picked: its items, payments, refunds, cancellations, shipments and returns. */
import { api } from "../api.js"
import { Badge, ErrorLine, Table, show, useLoad, when } from "../ui.js"

const parts = ["items", "payments", "refunds", "cancellations", "shipments", "returns"] as const

const Detail = ({ id }: { id: string }) => {
  const order = useLoad(() => api("GET", `/chat/orders/${id}`), [id])
  const lists = useLoad(
    () =>
      Promise.all(
        parts.map((p) =>
          api("GET", `/chat/orders/${id}/${p}`).then(
            (r: any) => r.data ?? r,
            () => []
          )
        )
      ),
    [id]
  )
  const o: any = order.data
  return (
    <section class="card">
      <ErrorLine error={order.error} />
      {o && (
        <>
          <h2>
            Order {o.id} <Badge value={o.status} />
          </h2>
          <Table rows={[Object.fromEntries(Object.entries(o).filter(([, v]) => typeof v !== "object" || v === null))]} />
        </>
      )}
      {parts.map((p, i) => (
        <div key={p}>
          <h2>{p[0].toUpperCase() + p.slice(1)}</h2>
          <Table rows={lists.data?.[i]} empty={`No ${p}.`} />
        </div>
      ))}
    </section>
  )
}

export const Orders = ({ rest }: { rest: Array<string> }) => {
  const { data, error } = useLoad(() => api("GET", "/chat/orders?limit=50"), [], 5000)
  return (
    <>
      <ErrorLine error={error} />
      <Table
        rows={data?.data}
        empty="No orders yet."
        onPick={(o: any) => (location.hash = `#/orders/${o.id}`)}
        selected={(o: any) => o.id === rest[0]}
        columns={[
          { label: "Order", cell: (o: any) => o.id },
          { label: "Status", cell: (o: any) => <Badge value={o.status} /> },
          { label: "Customer", cell: (o: any) => show(o.phone ?? o.customer_phone ?? o.customer_id) },
          { label: "Total", cell: (o: any) => show(o.total ?? o.amount) },
          { label: "Created", cell: (o: any) => when(o.created_at) }
        ]}
      />
      {rest[0] && <Detail id={rest[0]} />}
    </>
  )
}
