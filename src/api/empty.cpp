// libftmpi.so is made of the module archives; CMake needs one source.
