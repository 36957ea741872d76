"""Quartermaster General: The Cold War (registry id "qmg_cw")."""
