"""The ranking: from stored results to the standings that decide prizes. Standings and round
points in DuckDB SQL over the layered queries of pipeline/sql (scoring), a team's line
explained (explain), team meets (meets), the per-deal ladder (deals: pure, shared by the
`deals` sheet kind and simulate), the prize list (awards) and a round's stored tables and
reporting (rounds).

May use the base and Tractor's stage (the bracket's places); history, intake, the pairing
round, the event day and everything above use it."""
