"""Tractor (拖拉机 / 升级): a deal's points to levels (scoring), best-of-three matches and
their sheets (sheets), the group stage and the knockout stored (stages) over the pure
bracket logic (bracket, group_order, places).

The pure modules import nothing of paisai but the base's levels; the stored ones may use
the base. The ranking (awards), intake, the event day and everything above use it."""
