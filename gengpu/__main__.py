from gengpu.cli import main

main()
