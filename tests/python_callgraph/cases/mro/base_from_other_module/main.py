from base_views import View

class ProfileView(View):
    def get(self):
        return self.render("profile")

if __name__ == "__main__":
    ProfileView("/me").get()
