"""The self-contained HTML report for comparing engines, and plots."""
