print("keepsake-bench")
