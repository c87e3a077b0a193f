"""Intake: what organizers hand in, read, checked and stored. Reading sheets — CSV, Excel,
GBK, title rows, Chinese headers — into the sheet kinds (sheets), validating them with
pandera with errors an organizer can fix (validate, schemas/), storing them in one
transaction with their audit (ingest: results, penalties, fouls, deals, registrations,
Tractor sheets, history imports), the registration and its draw (registration), the
carry-over of an earlier event's totals (carry), and taking back the console's last action
(undo).

May use the base, Tractor's stage, the ranking (a stored round's standings are kept
current) and the history (who is who, refreshed when players are stored); the pairing
round, the event day, operations (watch), the command line and the dashboard use it."""
