"""Operations around the event day: backup, restore and check (maintenance), serving the
dashboard and its addresses (serve), the demo day (demo), simulated events (simulate), the
watched folder (watch) and the console's sessions (accounts).

May use every stage below it (the base, tractor, ranking, history, intake, pairing, the
event day, publishing); only the command line and the dashboard use it."""
