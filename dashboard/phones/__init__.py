"""The phones' process (issue 53): the hall's plain pages answered in a process of their own,
so that a hall of phones never takes the console's core.

With 1,000 phones on the plain pages, nine samples in ten of the hall's one process were its
event loop answering them (Streamlit's ASGI stack, h11, the sessions' messages): the
console's script, a thread of the same process, waited for the interpreter's lock, and the
organizer's upload → preview took 5.9 s. With `paisai dashboard --phones-port PORT`, this
process runs beside the hall's server on the phones' port, and the addresses the hall prints
for phones (QR codes, `paisai links`, the table list, the projector's QR, a phone sent from
/live) point at it. Measured on 2 cores (bench/findings.md), it cost the console more than
it spared it, so it is not started by default. It imports neither Streamlit, nor polars, nor DuckDB (the
database stays the hall's alone: one process may hold it read-write):

- a phone's GET of an event's page (`/m/{event}/…`) is answered from memory, kept per
  version of the event (`keep.Kept`): a page not kept yet is fetched from the hall's process
  once over loopback (one fetch however many phones ask), and the event's version is asked
  of the hall at most every REVALIDATE_SECONDS (one small request per event, not per phone);
  a new version — a stored result, a new round — is fetched at the next ask;
- everything else — the tables' reports and sheets, the referees' and appeals' forms (/r /t
  /k /o /a), the events' list, the API, any other address — goes to the hall's process
  unchanged (method, headers, cookies, body; its status, headers and redirects back), the
  phone's own address in X-Forwarded-For (the hall trusts it from loopback);
- the phones' connections are guarded as the hall's are (`dashboard.server`: a deadline for
  each request's headers, a bounded number of connections).
"""
