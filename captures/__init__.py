"""TowerLab captures package."""
