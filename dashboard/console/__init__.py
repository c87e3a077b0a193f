"""The organizer console's sections, by the day's phases (admin.py draws them). Every write
goes through the pipeline's own paths (validation, one transaction, audit); nothing here
computes a score.

status        where the event stands (every phase) and the timer that follows the hall
registration  赛前: the event, the registration, the draw and check-in
pairing       编排: the next round, its printouts and table cards
play          本轮: the clock, late arrivals, tables typed in, sheets, the phones' reports
after         赛后: the ranking, prizes, certificates, the picture, the backup
shared        what they share (the flash, undo, versions, QR codes, the waiting reports)
"""

from dashboard.console.after import downloads
from dashboard.console.pairing import pair_next, round_downloads
from dashboard.console.play import clock, enter_table, self_report
from dashboard.console.registration import create_event, registration_desk, upload
from dashboard.console.shared import console_version, flash, listens_for, undo_last
from dashboard.console.status import follow, hall_status, organizer_first, round_status

__all__ = ["clock", "console_version", "create_event", "downloads", "enter_table", "flash", "follow",
           "hall_status",
           "listens_for", "organizer_first", "pair_next", "registration_desk", "round_downloads", "round_status",
           "self_report", "undo_last", "upload"]
