func.func @step_outside_phase() {
  comm.step.send input[0] to 1 count 4
  return
}
