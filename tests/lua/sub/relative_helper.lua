return "helper beside the script"
