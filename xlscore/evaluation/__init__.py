"""Agreement with human judgments (correlation statistics with bootstrap intervals), comparing
engines, and the hand-written challenge set."""
