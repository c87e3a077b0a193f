"""The event day in the hall: the round's clock (clock: pure; clockstore: its state and
late arrivals), the tables' own reports from the phones (selfreport), the table's own
deal-by-deal sheet (tablesheet: pure), and the reads the
hall's screens make (queries: the live ranking, the round's status, the current pairings).

May use the base and the stages below it (tractor, ranking, history, intake, the pairing
round); publishing, operations, the command line and the dashboard use it."""
