print("keepsake-stress")
