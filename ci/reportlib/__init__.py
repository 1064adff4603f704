"""The parts of ci/report.py (boundbench report). matplotlib draws off-screen (Agg), chosen before
any part imports pyplot."""
import matplotlib

matplotlib.use("Agg")
