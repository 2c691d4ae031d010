prog.s:3:29: value 'banana' of field x_size is not a number
  load memory_type=inp x_size=banana
                              ^
