return "sub.mod loaded"
