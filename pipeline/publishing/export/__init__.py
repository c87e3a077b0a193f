"""Exports for the wall, the referees and the score table: xlsx, csv, printable html."""
