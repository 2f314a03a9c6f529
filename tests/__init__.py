"""TowerLab test suite."""
