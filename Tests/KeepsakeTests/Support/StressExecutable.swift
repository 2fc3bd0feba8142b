import KeepsakeStress

/// The `keepsake-stress` executable built beside the test bundle (the test target depends on
/// it): its `user-defaults` and `exit-flush` commands are the child processes of the
/// preferences and exit-flush suites.
let stressExecutable = ExecutablePath.sibling(named: "keepsake-stress")
