"""The officials (issue 43): who they are and what they may do (`people`), the penalty
ladder (`ladder`, pure), what they record and rule at the tables, leave and appeals
(`rulings`), and the report a federation asks for (`report`). This stage may use base, the
pure engines, ranking, intake, the pairing round, day and publishing."""
