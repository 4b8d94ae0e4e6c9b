// `brook-demo`: the main demo (scripts/demo.sh runs it).
#include "demo.h"

int main(int argc, char** argv) { return brook::demo::run_demo(argc, argv); }
