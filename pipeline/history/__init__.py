"""History across events, for associations: who is who (identity, over the pure reading
of the evidence in evidence), players' and units' statistics and event ranks (stats), and
the rating list (ratings).

May use the base and the ranking (each event's standings); intake (a registration or an
import refreshes who is who), the event day, the command line and the dashboard use it."""
