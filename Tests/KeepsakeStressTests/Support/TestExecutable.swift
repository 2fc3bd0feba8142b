import KeepsakeStress

/// The `keepsake-stress` executable built beside the test bundle (the test target depends on
/// it), started as the campaigns' child processes.
let stressExecutable = ExecutablePath.sibling(named: "keepsake-stress")
