"""paisai (牌赛): scoring, ranking and pairing for Guandan and Tractor tournaments."""

__version__ = "0.1.0"
