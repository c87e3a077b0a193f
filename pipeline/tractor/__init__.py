"""Tractor (拖拉机 / 升级): deal scoring, best-of-three matches, group stage and knockout."""
